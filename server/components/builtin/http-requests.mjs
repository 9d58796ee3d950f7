// Built-in registry component: every request to the endpoint becomes an event.
export default {
  key: "http-new-requests",
  name: "New Requests",
  version: "0.1.0",
  description: "Emit an event for each HTTP request to the source's endpoint. Answers 200 at once.",
  props: {
    http: { type: "$.interface.http", customResponse: false },
  },
  async run(event) {
    this.$emit(event, { summary: `${event.method} ${event.path}`, ts: Date.now() });
  },
};
