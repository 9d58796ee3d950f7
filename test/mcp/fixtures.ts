/** Component and step code for the MCP tests and bench (no vitest here: the bench imports it). */

/** An HTTP source that emits each request's body (summary: its method) and logs a line. */
export const echoSource = (key: string) => `
export default {
  key: "${key}",
  name: "MCP echo",
  version: "0.1.0",
  props: { http: { type: "$.interface.http" } },
  async run(event) {
    console.log("got", event.method, event.path);
    this.$emit(event.body, { summary: "request " + event.method });
  },
};
`;

/** A workflow step that emits what it received, marked. */
export const relayStep = `export default defineComponent({ async run({ steps, $ }) { $.send.emit({ relayed: steps.trigger.event }); } });`;
