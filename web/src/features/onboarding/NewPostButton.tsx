import { useId } from 'react';
import { Button } from '../../components/ui.js';

/**
 * The calendar's "New post": with no channel it stays disabled but says why, tied to the button
 * (aria-describedby), and offers the way out: connecting a channel (issue 28).
 */
export function NewPostButton({ noChannels, onNew, onConnect }: { noChannels: boolean; onNew: () => void; onConnect: () => void }) {
  const hint = useId();
  if (!noChannels) return <Button onClick={onNew}>New post</Button>;
  return (
    <div className="gs-newpost">
      <p className="gs-newpost-why" id={hint}>
        Connect a channel first: posts go to channels.
      </p>
      <Button variant="secondary" onClick={onConnect}>
        Connect a channel
      </Button>
      <Button disabled aria-describedby={hint}>
        New post
      </Button>
    </div>
  );
}
