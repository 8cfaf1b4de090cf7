// @turnkey/react-wallet-kit, unmodified, with its two frame URLs pointed at the simulator's pages
// (the ready line's exportIframeUrl and importIframeUrl) and its API at the simulator's two ports.
// The test logs in through the kit's modal, then calls handleExportWallet / handleImportWallet,
// which open the kit's own modals around the frames; window.kit is useTurnkey().
import React from "react";
import { createRoot } from "react-dom/client";
import { TurnkeyProvider, useTurnkey } from "@turnkey/react-wallet-kit";
import "@turnkey/react-wallet-kit/styles.css";

const query = new URLSearchParams(window.location.search);
window.events = [];

const config = {
  apiBaseUrl: query.get("url"),
  authProxyUrl: query.get("proxyUrl"),
  authProxyConfigId: query.get("configId"),
  organizationId: query.get("organizationId"),
  exportIframeUrl: query.get("exportIframeUrl"),
  importIframeUrl: query.get("importIframeUrl"),
  ui: { authModal: { methods: { emailOtpAuthEnabled: true, passkeyAuthEnabled: false, walletAuthEnabled: false,
                                smsOtpAuthEnabled: false, googleOauthEnabled: false, appleOauthEnabled: false } } },
};

const callbacks = {
  onAuthenticationSuccess: ({ session, action }) =>
    window.events.push({ type: "auth", action, organizationId: session && session.organizationId, userId: session && session.userId }),
  onError: (error) => window.events.push({ type: "error", code: error && error.code, message: String(error && error.message),
                                          cause: String(error && error.cause && (error.cause.message || error.cause)) }),
};

function App() {
  const kit = useTurnkey();
  window.kit = kit;
  return (
    <main>
      <p id="state" data-client={String(kit.clientState)} data-auth={String(kit.authState)}>
        {kit.session ? `${kit.session.organizationId} ${kit.session.userId}` : "signed out"}
      </p>
      <button id="login" onClick={() => kit.handleLogin()}>Log in or sign up</button>
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <TurnkeyProvider config={config} callbacks={callbacks}>
    <App />
  </TurnkeyProvider>,
);
