/**
 * Choosing one of the user's data stores for a `data_store` prop (a code step's, in the builder):
 * the stores by name, newest first; the value is the store's id. A value naming no store of the
 * user's (deleted, or typed elsewhere) stays chosen and shows as its id, for the server to refuse.
 */
import { useDataStores } from "../../state/queries.js";

export function StoreSelect(props: {
  id: string;
  storeId: string;
  invalid: boolean;
  describedBy: string | undefined;
  onChange: (storeId: string) => void;
}) {
  const stores = useDataStores({ limit: 100 });
  const list = stores.data?.data ?? [];
  const unknown = props.storeId !== "" && !list.some((s) => s.id === props.storeId);
  return (
    <select
      id={props.id}
      value={props.storeId}
      aria-invalid={props.invalid ? true : undefined}
      aria-describedby={props.describedBy}
      onChange={(e) => props.onChange(e.target.value)}
    >
      <option value="">
        {list.length === 0 && stores.data
          ? "No data stores: add one under Data stores"
          : "Choose a data store"}
      </option>
      {unknown && <option value={props.storeId}>{props.storeId}</option>}
      {list.map((s) => (
        <option key={s.id} value={s.id}>
          {s.name} ({s.id})
        </option>
      ))}
    </select>
  );
}
