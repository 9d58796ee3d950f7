/**
 * The names of the bridge's operations and push channels, without the argument schemas, so the
 * browser bridge of web mode can be bundled without zod. `bridge.ts` checks at compile time that
 * this list is exactly the keys of `bridgeArgs`.
 */
export const BRIDGE_METHOD_NAMES = [
  "hostInfo",
  "listProfiles",
  "currentProfile",
  "addRemoteProfile",
  "selectProfile",
  "removeProfile",
  "setProfileKey",
  "keyStatus",
  "getMe",
  "rotateApiKey",
  "listUsers",
  "createUser",
  "updateUser",
  "deleteUser",
  "listMyComponents",
  "createComponent",
  "getComponent",
  "getRegistryComponent",
  "publishComponent",
  "propOptions",
  "listMySources",
  "createSource",
  "getSource",
  "updateSource",
  "deleteSource",
  "listSourceEvents",
  "getSourceEvent",
  "deleteSourceEvents",
  "listWorkflowEvents",
  "listWorkflowErrors",
  "listMySubscriptions",
  "createSubscription",
  "deleteSubscription",
  "createAutoSubscription",
  "listMyWorkflows",
  "createWorkflow",
  "getWorkflow",
  "updateWorkflow",
  "deleteWorkflow",
  "sendTestRequest",
  "listTestRequests",
  "watch",
  "unwatch",
] as const;

/** Names of the push channels (IPC channel names in Electron, SSE event names in web mode). */
export const PUSH_CHANNELS = {
  streamBatch: "headwater:stream-batch",
  streamState: "headwater:stream-state",
  profilesChanged: "headwater:profiles-changed",
} as const;
