/**
 * An action's props as the sources' props form knows them (`PropDescriptor`), and the form's
 * values as a workflow step's props, where a value may be a `{{ steps.<path> }}` reference.
 */
import type { Action, PropDescriptor } from "../../../shared/resources/index.js";
import { buildConfiguredProps, type BuildResult, type FormState } from "../sources/propsForm.js";

/** `options: true` (choices from the server) becomes `remoteOptions`; fixed choices are not listed. */
export function actionDescriptors(action: Action): PropDescriptor[] {
  return action.props.map((p) => {
    const d: PropDescriptor = { name: p.name, type: p.type };
    if (p.label !== undefined) d.label = p.label;
    if (p.description !== undefined) d.description = p.description;
    if (p.optional !== undefined) d.optional = p.optional;
    if (p.app !== undefined) d.app = p.app;
    if (p.default !== undefined) d.default = p.default;
    if (p.options === true) d.remoteOptions = true;
    return d;
  });
}

const REFERENCE = /\{\{.*\}\}/s;

/**
 * A step's props: as `buildConfiguredProps`, except that a field whose text holds a `{{ ... }}`
 * reference is sent as that text (the runner resolves it), whatever the prop's type.
 */
export function buildStepProps(descriptors: readonly PropDescriptor[], state: FormState): BuildResult {
  const built = buildConfiguredProps(descriptors, state);
  if (built.ok) return built;
  const errors = { ...built.errors };
  const refs: Record<string, string> = {};
  for (const name of Object.keys(errors)) {
    const raw = state[name];
    if (typeof raw === "string" && REFERENCE.test(raw)) {
      refs[name] = raw.trim();
      delete errors[name];
    }
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  // Everything else converted: build again without the referenced fields, then add them.
  const rest = buildConfiguredProps(
    descriptors.filter((d) => !(d.name in refs)),
    state,
  );
  return rest.ok ? { ok: true, value: { ...rest.value, ...refs } } : rest;
}
