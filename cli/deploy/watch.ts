/**
 * Watching a component's files for `dev`, with chokidar (a well-kept watcher that handles
 * editors saving by rename and coalesces bursts): a change to any of them, after a short
 * quiet period, calls `onChange` once; the set of files follows the component's imports.
 */
import { watch, type FSWatcher } from "chokidar";

export interface FileWatch {
  /** Replaces the watched set (after a re-deploy found other imports). */
  setFiles(files: string[]): void;
  close(): Promise<void>;
}

export function watchFiles(files: string[], onChange: (file: string) => void, quietMs = 150): FileWatch {
  let current = new Set(files);
  const watcher: FSWatcher = watch([...current], {
    ignoreInitial: true,
    awaitWriteFinish: { stabilityThreshold: 80, pollInterval: 20 },
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let changed = "";
  const fire = (file: string) => {
    changed = file;
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => onChange(changed), quietMs);
  };
  watcher.on("change", fire).on("add", fire).on("unlink", fire);
  return {
    setFiles(next) {
      const wanted = new Set(next);
      const gone = [...current].filter((f) => !wanted.has(f));
      const added = [...wanted].filter((f) => !current.has(f));
      if (gone.length) watcher.unwatch(gone);
      if (added.length) watcher.add(added);
      current = wanted;
    },
    async close() {
      if (timer) clearTimeout(timer);
      await watcher.close();
    },
  };
}
