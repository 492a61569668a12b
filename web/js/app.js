// The single-page client: hash routes to pages. Each page is a function
// (root, params) => cleanup, so live feeds close when the user navigates away.
import { showAccount } from "./account.js";
import { mount, h } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { gamePage, joinPage } from "./game.js";
import { historyPage } from "./history.js";
import { accountPage, myGamesPage } from "./me.js";
import { playerPage } from "./player.js";
import { botPage, ladderPage } from "./ladder.js";
import { replayPage } from "./replay.js";
import { tournamentPage, tournamentsPage } from "./tournament.js";

const routes = [
  [/^\/?$/, () => lobbyPage],
  [/^\/game\/([^/]+)$/, () => gamePage],
  [/^\/join\/([^/]+)\/(\d+)$/, () => joinPage],
  [/^\/replay\/([^/]+)$/, () => replayPage],
  [/^\/history$/, () => historyPage],
  [/^\/tournaments$/, () => tournamentsPage],
  [/^\/tournament\/([^/]+)$/, () => tournamentPage],
  [/^\/ladder$/, () => ladderPage],
  [/^\/bot\/([^/]+)$/, () => botPage],
  [/^\/account$/, () => accountPage],
  [/^\/me$/, () => myGamesPage],
  [/^\/player\/([^/]+)$/, () => playerPage],
];

let cleanup = null;

function route() {
  const root = document.getElementById("app");
  showAccount(); // signed in or out in another tab meanwhile
  if (cleanup) cleanup();
  cleanup = null;
  const hash = window.location.hash.replace(/^#/, "") || "/";
  const [path, queryString] = hash.split("?");
  const query = new URLSearchParams(queryString || "");
  for (const [pattern, page] of routes) {
    const match = path.match(pattern);
    if (match) {
      const args = match.slice(1).map(decodeURIComponent);
      cleanup = page()(root, args, query) || null;
      return;
    }
  }
  mount(root, h("p", { class: "error" }, `No page at ${path}. `), h("a", { href: "#/" }, "Lobby"));
}

window.addEventListener("hashchange", route);
route();
