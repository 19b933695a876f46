import { describe, expect, it } from 'vitest';
import { mediaFileName } from './media.js';

describe('mediaFileName', () => {
  it('keeps the stored stem and takes the extension from the type actually sent', () => {
    expect(mediaFileName({ id: 'm1', path: 'https://t.example/media/2026/11/abc123.png', mimeType: 'image/png' })).toBe('abc123.png');
    // re-encoded at publish time: JPEG bytes must not be named .png
    expect(mediaFileName({ id: 'm1', path: 'https://t.example/media/2026/11/abc123.png', mimeType: 'image/jpeg' })).toBe('abc123.jpg');
    expect(mediaFileName({ id: 'm1', path: 'https://t.example/media/2026/11/abc123.avif?x=1', mimeType: 'image/jpeg' })).toBe('abc123.jpg');
    expect(mediaFileName({ id: 'm2', path: 'https://t.example/media/clip.MOV', mimeType: 'video/quicktime' })).toBe('clip.mov');
  });

  it('falls back to the id when the path has no extension', () => {
    expect(mediaFileName({ id: 'm3', path: 'https://t.example/files/v', mimeType: 'video/mp4' })).toBe('m3.mp4');
  });
});
