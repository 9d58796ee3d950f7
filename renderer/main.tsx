/** Renderer entry: mounts the app into #root. */
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App.js";
import { startTheme } from "./app/theme.js";
// Styles by area, in cascade order: tokens and elements, shell, widgets, then the views.
import "./app/styles/base.css";
import "./app/styles/shell.css";
import "./app/styles/controls.css";
import "./app/styles/combobox.css";
import "./app/styles/widgets.css";
import "./app/styles/master-detail.css";
import "./app/styles/account.css";
import "./app/styles/actions.css";
import "./app/styles/source-create.css";
import "./app/styles/code-editor.css";
import "./app/styles/builder.css";
import "./app/styles/builder-test.css";
import "uplot/dist/uPlot.min.css";
import "./app/styles/events.css";
import "./app/styles/inspection.css";
import "./app/styles/runs.css";
import "./app/styles/test-event.css";
import "./app/styles/flow.css";
import "./app/styles/json-tree.css";

startTheme();
const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
