// A plain page with @turnkey/sdk-browser (unmodified): each frame is an sdk-browser iframeClient
// (and so an @turnkey/iframe-stamper IframeStamper) whose iframeUrl is one of the simulator's
// frame pages. tests/frames/drive.js calls window.frameApp from Playwright; nothing here knows
// it talks to a simulator except the URLs it is given.
import { Turnkey } from "@turnkey/sdk-browser";

const clients = {};

window.frameApp = {
  /** Open a frame through sdk-browser's iframeClient; its embedded public key ("" for import). */
  async open(name, { iframeUrl, apiBaseUrl, organizationId }) {
    const container = document.createElement("div");
    container.id = `box-${name}`;
    document.getElementById("frames").appendChild(container);
    const turnkey = new Turnkey({ apiBaseUrl, defaultOrganizationId: organizationId });
    clients[name] = await turnkey.iframeClient({ iframeContainer: container, iframeUrl, iframeElementId: `frame-${name}` });
    return clients[name].iframePublicKey;
  },

  /** Call a method of a frame's client; a rejection comes back as {error}. */
  async call(name, method, ...args) {
    try {
      return { value: await clients[name][method](...args) };
    } catch (error) {
      return { error: String(error && error.message) };
    }
  },
};
