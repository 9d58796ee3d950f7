// Built-in registry component: a schedule with no run, so each tick emits the timer event
// ({timestamp, interval_seconds} or {timestamp, cron}).
export default {
  key: "schedule",
  name: "Schedule",
  version: "0.1.0",
  description: "Emit an event on a schedule: every N seconds, or by a cron expression (UTC).",
  props: {
    timer: {
      type: "$.interface.timer",
      label: "Schedule",
      description: "How often to emit",
      default: { intervalSeconds: 900 },
    },
  },
};
