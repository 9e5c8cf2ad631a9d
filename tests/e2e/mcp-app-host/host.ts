/**
 * A minimal MCP Apps host for tests/e2e/mcp-app.test.ts, run in Chromium: the official MCP client
 * (v2, `auto`: revision 2026-07-28, declaring the MCP Apps extension) connected to the service's
 * /api/mcp with a key, and the extension's own host side (`AppBridge` of
 * `@modelcontextprotocol/ext-apps/app-bridge`) rendering the `ui://` resource a tool names in a
 * sandboxed iframe (`allow-scripts` only), under a CSP built from the resource's `_meta.ui.csp`
 * the way the extension tells hosts to. `window.mcpHost.show(tool, args)` calls the tool, loads the
 * card and hands it the input and the result; `window.mcpHost.showResult(tool, result)` loads the
 * card and hands it a result obtained elsewhere (an MCP task handle or `tasks/get` result, which
 * this SDK client cannot request). Links the card opens are recorded in `window.mcpHost.opened`
 * (refused when the page was opened with `denyOpenLink`); its `ui/update-model-context` updates in
 * `window.mcpHost.context`.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge,
  getToolUiResourceUri,
  type McpUiHostContext,
  PostMessageTransport,
} from "@modelcontextprotocol/ext-apps/app-bridge";

interface HostConfig {
  apiKey: string;
  locale: string;
  theme: "light" | "dark";
  denyOpenLink?: boolean;
}

declare global {
  interface Window {
    hostConfig: HostConfig;
    mcpHost: {
      opened: string[];
      context: { content?: { type: string; text?: string }[]; structuredContent?: Record<string, unknown> }[];
      show(name: string, args: Record<string, unknown>): Promise<unknown>;
      showResult(name: string, result: Record<string, unknown>): Promise<void>;
      csp: string;
    };
    hostReady?: boolean;
    hostError?: string;
  }
}

const config = window.hostConfig;
const client = new Client(
  { name: "e2e-apps-host", version: "1.0.0" },
  {
    versionNegotiation: { mode: "auto" },
    capabilities: {
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
    } as never,
  },
);

/** The CSP an extension host applies to a view declaring `csp` (the spec's default when empty). */
function cspOf(csp: { connectDomains?: string[]; resourceDomains?: string[] } | undefined): string {
  const connect = csp?.connectDomains?.length ? csp.connectDomains.join(" ") : "'none'";
  const resources = csp?.resourceDomains?.join(" ") ?? "";
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${resources}`.trim(),
    `style-src 'unsafe-inline' ${resources}`.trim(),
    `img-src data: ${resources}`.trim(),
    `font-src ${resources || "'none'"}`,
    `connect-src ${connect}`,
    "frame-src 'none'",
    "base-uri 'none'",
  ].join("; ");
}

async function main() {
  await client.connect(
    new StreamableHTTPClientTransport(new URL("/api/mcp", location.origin), {
      requestInit: { headers: { "x-api-key": config.apiKey } },
    }),
  );
  const { tools } = await client.listTools();
  const slot = document.getElementById("slot")!;
  /** Renders the card `name` names in a fresh sandboxed iframe; resolves with its bridge once initialized. */
  async function load(name: string): Promise<AppBridge> {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    const uri = getToolUiResourceUri(tool);
    if (!uri) throw new Error(`${name} names no ui resource`);
    const read = await client.readResource({ uri });
    const content = read.contents[0] as {
      text: string;
      mimeType: string;
      _meta?: { ui?: { csp?: never } };
    };
    if (content.mimeType !== "text/html;profile=mcp-app") throw new Error(`mimeType ${content.mimeType}`);
    const csp = cspOf(content._meta?.ui?.csp);
    window.mcpHost.csp = csp;
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.title = "Task card";
    iframe.style.cssText = "width:100%;border:0;display:block;height:200px";
    slot.replaceChildren(iframe);
    const hostContext: McpUiHostContext = {
      theme: config.theme,
      locale: config.locale,
      timeZone: "America/Toronto",
      displayMode: "inline",
      availableDisplayModes: ["inline", "fullscreen"],
      platform: "web",
    };
    const bridge = new AppBridge(
      client as never,
      { name: "e2e-apps-host", version: "1.0.0" },
      { openLinks: {}, serverTools: {}, serverResources: {}, updateModelContext: { text: {} } },
      { hostContext },
    );
    bridge.onopenlink = async ({ url }) => {
      window.mcpHost.opened.push(url);
      return config.denyOpenLink ? { isError: true } : {};
    };
    bridge.onupdatemodelcontext = async (params) => {
      window.mcpHost.context.push(params as never);
      return {};
    };
    bridge.onsizechange = ({ height }) => {
      if (height) iframe.style.height = `${Math.ceil(height)}px`;
    };
    bridge.onrequestdisplaymode = async ({ mode }) => {
      document.body.dataset.displayMode = mode;
      return { mode };
    };
    const initialized = new Promise<void>((resolve) => {
      bridge.oninitialized = () => resolve();
    });
    await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
    iframe.srcdoc = content.text.replace(
      "<head>",
      `<head><meta http-equiv="Content-Security-Policy" content="${csp}">`,
    );
    await initialized;
    return bridge;
  }
  window.mcpHost = {
    opened: [],
    context: [],
    csp: "",
    async show(name, args) {
      const bridge = await load(name);
      const result = await client.callTool({ name, arguments: args });
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(result as never);
      return result;
    },
    async showResult(name, result) {
      const bridge = await load(name);
      await bridge.sendToolResult(result as never);
    },
  };
  window.hostReady = true;
}

main().catch((error: unknown) => {
  window.hostError = String(error);
});
