/** Component code the e2e journeys deploy (each spec gives its own keys, so none collide). */

/** An HTTP source that emits each request's body; a body with `fail` throws (an $errors event). */
export function orderEmitter(key: string, name: string): string {
  return `
export default {
  key: "${key}", name: "${name}", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) {
    if (event.body?.fail) throw new Error("asked to fail " + event.body.n);
    this.$emit(event.body, { summary: "order " + event.body?.n });
  },
};`;
}

/** An HTTP source that emits what it is sent, so a test can see what reached it. */
export function echoListener(key: string): string {
  return `
export default {
  key: "${key}", name: "Listener", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ got: event }); },
};`;
}
