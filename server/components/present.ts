/** A component's row as the API answers it, and the parts of it the runtime reads. */
import type { Component, PropDescriptor } from "../../shared/resources/index.js";
import type { ComponentFiles } from "../services.js";
import type { ComponentRow } from "../store/repos/components.js";

export function componentProps(row: ComponentRow): PropDescriptor[] {
  return JSON.parse(row.props) as PropDescriptor[];
}

export function componentFiles(row: ComponentRow): ComponentFiles | undefined {
  return row.files ? (JSON.parse(row.files) as ComponentFiles) : undefined;
}

export function present(row: ComponentRow): Component {
  const c: Component = {
    id: row.id,
    code: row.code,
    code_hash: row.code_hash,
    name: row.name,
    version: row.version,
    description: row.description,
    component_url: row.component_url,
    published: row.published === 1,
    configurable_props: componentProps(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  if (row.key) c.key = row.key;
  return c;
}
