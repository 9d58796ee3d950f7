/**
 * A spinner for long operations (a first deploy that installs npm packages), on a TTY only:
 * anywhere else it prints nothing, so piped output and logs stay clean.
 */
const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export async function withSpinner<T>(stream: NodeJS.WriteStream, text: string, work: () => Promise<T>): Promise<T> {
  if (!stream.isTTY) return work();
  const started = Date.now();
  let i = 0;
  const draw = () => {
    const secs = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r\u001b[2K${FRAMES[i++ % FRAMES.length]} ${text}${secs >= 2 ? ` (${secs}s)` : ""}`);
  };
  draw();
  const timer = setInterval(draw, 100);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    stream.write("\r\u001b[2K");
  }
}
