// A React page with @turnkey/react-wallet-kit pointed straight at the simulator's two ports
// (apiBaseUrl = the ready line's url, authProxyUrl = its proxyUrl): no dev-server proxy.
// The test clicks through the kit's own auth modal; window.kit exposes useTurnkey() for the steps
// that have no button here (create a wallet, sign), and window.events records the callbacks.
import React from "react";
import { createRoot } from "react-dom/client";
import { TurnkeyProvider, useTurnkey } from "@turnkey/react-wallet-kit";
import "@turnkey/react-wallet-kit/styles.css";
import { simulator } from "./config.js";

window.events = [];

const config = {
  apiBaseUrl: simulator.url,
  authProxyUrl: simulator.proxyUrl,
  authProxyConfigId: simulator.configId,
  organizationId: simulator.organizationId,
  auth: { createSuborgParams: { passkeyAuth: { passkeyName: "webapp-passkey" } } },
  ui: { authModal: { methods: { emailOtpAuthEnabled: true, passkeyAuthEnabled: true, walletAuthEnabled: false,
                                smsOtpAuthEnabled: false, googleOauthEnabled: false, appleOauthEnabled: false } } },
};

const callbacks = {
  onAuthenticationSuccess: ({ session, action, method, identifier }) =>
    window.events.push({ type: "auth", action, method, identifier,
                         organizationId: session && session.organizationId, userId: session && session.userId }),
  onError: (error) => window.events.push({ type: "error", code: error && error.code, message: String(error && error.message) }),
};

function App() {
  const kit = useTurnkey();
  window.kit = kit;
  return (
    <main>
      <h1>Wallet simulator web app</h1>
      <p id="state" data-client={String(kit.clientState)} data-auth={String(kit.authState)}>
        {kit.session ? `${kit.session.organizationId} ${kit.session.userId}` : "signed out"}
      </p>
      <button id="login" onClick={() => kit.handleLogin()}>Log in or sign up</button>
      <button id="logout" onClick={() => kit.logout()}>Log out</button>
    </main>
  );
}

createRoot(document.getElementById("root")).render(
  <TurnkeyProvider config={config} callbacks={callbacks}>
    <App />
  </TurnkeyProvider>,
);
