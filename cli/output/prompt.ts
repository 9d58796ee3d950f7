/**
 * Questions on the terminal (`login`). On a TTY the answer to a secret question is not echoed;
 * when stdin is not a TTY each answer is the next line of stdin, so scripts can pipe them in.
 */
import readline from "node:readline";
import { UsageError } from "../errors.js";

export interface Prompter {
  ask(question: string, opts?: { secret?: boolean }): Promise<string>;
  close(): void;
}

export function createPrompter(stdin: NodeJS.ReadStream = process.stdin, stderr: NodeJS.WriteStream = process.stderr): Prompter {
  const tty = stdin.isTTY === true;
  const rl = readline.createInterface({ input: stdin, output: stderr, terminal: tty });
  if (!tty) {
    const lines = rl[Symbol.asyncIterator]();
    return {
      async ask(question) {
        stderr.write(question);
        const next = await lines.next();
        stderr.write("\n");
        if (next.done) throw new UsageError(`no answer on stdin for "${question.trim()}"`);
        return String(next.value).trim();
      },
      close: () => rl.close(),
    };
  }
  // readline echoes what is typed through _writeToOutput; muting it hides a key being typed.
  const internals = rl as unknown as { _writeToOutput: (s: string) => void };
  const write = internals._writeToOutput.bind(rl);
  let muted = false;
  internals._writeToOutput = (s: string) => {
    if (!muted || s.includes("\n")) write(muted ? "\n" : s);
  };
  return {
    ask(question, opts) {
      return new Promise((resolve, reject) => {
        rl.question(question, (answer) => {
          muted = false;
          resolve(answer.trim());
        });
        muted = opts?.secret === true;
        rl.once("close", () => reject(new UsageError("no answer given")));
      });
    },
    close: () => rl.close(),
  };
}
