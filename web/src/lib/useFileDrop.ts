import { useRef, useState, type DragEvent } from 'react';

/**
 * A drop zone's state and handlers: `over` while files are dragged over it (counted through its
 * children, so moving between them does not flicker), `onFiles` with what is dropped.
 */
export function useFileDrop(onFiles: (files: FileList) => void) {
  const depth = useRef(0);
  const [over, setOver] = useState(false);
  const handlers = {
    onDragEnter(e: DragEvent) {
      e.preventDefault();
      depth.current += 1;
      setOver(true);
    },
    onDragOver(e: DragEvent) {
      e.preventDefault();
      e.dataTransfer.dropEffect = 'copy';
    },
    onDragLeave() {
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    },
    onDrop(e: DragEvent) {
      e.preventDefault();
      depth.current = 0;
      setOver(false);
      if (e.dataTransfer.files.length) onFiles(e.dataTransfer.files);
    },
  };
  return { over, handlers };
}
