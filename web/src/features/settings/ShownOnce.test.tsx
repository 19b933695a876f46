import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ShownOnce } from './common.js';

function Harness({ secret }: { secret: string }) {
  const [shown, setShown] = useState<string | null>(secret);
  return shown ? <ShownOnce title="New key" label="API key" secret={shown} warning="Copy it now: it is shown only once." onDone={() => setShown(null)} /> : <p>gone</p>;
}

describe('a secret shown once', () => {
  afterEach(() => vi.restoreAllMocks());

  it('shows the secret read-only with its warning, copies it, and is gone for good once dismissed', async () => {
    const user = userEvent.setup();
    const writeText = vi.spyOn(navigator.clipboard, 'writeText').mockResolvedValue(undefined);
    render(<Harness secret="tdk_secret_value_123" />);
    const box = screen.getByRole('textbox', { name: 'API key' });
    expect(box).toHaveProperty('value', 'tdk_secret_value_123');
    expect(box).toHaveProperty('readOnly', true);
    expect(screen.getByText(/shown only once/)).toBeTruthy();
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith('tdk_secret_value_123');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Copied ✓' })).toBeTruthy());
    await user.click(screen.getByRole('button', { name: 'Done, I have saved it' }));
    expect(screen.queryByRole('textbox', { name: 'API key' })).toBeNull();
    expect(document.body.innerHTML).not.toContain('tdk_secret_value_123');
  });

  it('without a clipboard, it selects the secret for Ctrl+C and says so', async () => {
    const user = userEvent.setup();
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    render(<Harness secret="whsec_abc" />);
    await user.click(screen.getByRole('button', { name: 'Copy' }));
    const box = screen.getByRole<HTMLInputElement>('textbox', { name: 'API key' });
    await waitFor(() => expect(document.activeElement).toBe(box));
    expect(box.selectionStart).toBe(0);
    expect(box.selectionEnd).toBe('whsec_abc'.length);
    expect(screen.getAllByText(/press Ctrl\+C/).length).toBeGreaterThan(0);
  });
});
