// History: finished games from the archive (ListGames, status FINISHED), filterable by
// game and by a seat's name, newest first, page by page; each opens its replay. The
// filters live in the address (#/history?game=cite&player=Ann), so a view can be shared.
import { api } from "./api.js";
import { h, mount } from "./dom.js";
import { seatNames, winnerCell } from "./names.js";

const PAGE = 25;

export function historyPage(root, _args, query) {
  const game = query.get("game") || "";
  const player = query.get("player") || "";
  const pageToken = query.get("page") || "";
  mount(root, h("p", { class: "muted" }, "Loading…"));
  Promise.all([api.gameTypes(), api.listFinishedGames({ gameType: game, player, pageToken, pageSize: PAGE })])
    .then(([types, page]) => render(root, types.gameTypes || [], { game, player }, page))
    .catch((err) => mount(root, h("p", { class: "error" }, err.message)));
}

function address(filters, page = "") {
  const q = new URLSearchParams();
  if (filters.game) q.set("game", filters.game);
  if (filters.player) q.set("player", filters.player);
  if (page) q.set("page", page);
  const text = q.toString();
  return `#/history${text ? `?${text}` : ""}`;
}

function render(root, types, filters, page) {
  const games = page.games || [];
  const gameSelect = h(
    "select",
    { name: "game", "aria-label": "Game" },
    h("option", { value: "" }, "All games"),
    types.map((t) => h("option", { value: t.name, selected: t.name === filters.game }, t.name)),
  );
  const playerInput = h("input", {
    name: "player",
    value: filters.player,
    placeholder: "A player's name",
    "aria-label": "Player",
  });
  const form = h(
    "form",
    {
      class: "filters",
      onsubmit: (event) => {
        event.preventDefault();
        window.location.hash = address({ game: gameSelect.value, player: playerInput.value.trim() });
      },
    },
    gameSelect,
    playerInput,
    h("button", { type: "submit" }, "Filter"),
  );
  mount(
    root,
    h(
      "section",
      { class: "card" },
      h("h1", {}, "History"),
      form,
      games.length
        ? h(
            "table",
            { class: "tables history" },
            h("thead", {}, h("tr", {}, ["Finished", "Game", "Players", "Winner", ""].map((t) => h("th", {}, t)))),
            h(
              "tbody",
              {},
              games.map((g) =>
                h(
                  "tr",
                  { dataset: { gameId: g.gameId } },
                  h("td", {}, g.finishedTime ? new Date(g.finishedTime).toLocaleString() : "-"),
                  h("td", {}, h("span", { class: `badge game-${g.gameType}` }, g.gameType)),
                  h("td", { class: "names" }, seatNames(g)),
                  h("td", { dataset: { label: "Won by" } }, winnerCell(g)),
                  h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(g.gameId)}` }, "Replay")),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, "No finished game matches."),
      page.nextPageToken ? h("a", { class: "next-page", href: address(filters, page.nextPageToken) }, "Older games") : null,
    ),
  );
}
