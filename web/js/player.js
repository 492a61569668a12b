// A player's page (#/player/<name>): the account (kind, games played), its ratings
// per game and player count as they stand, its rating over time (GetAccount's history
// per game and player count; a ladder bot's from its ladder: the chart of its bot page),
// and its recent games (ListGames account=; a ladder bot's from its ladder, whose seats
// are not bound to accounts).
import { api, errorText } from "./api.js";
import { h, mount } from "./dom.js";
import { ratingChart } from "./ladder.js";
import { seatNames, winnerCell } from "./names.js";

function num(x) {
  return Number(x || 0).toFixed(2);
}

export function playerPage(root, [name]) {
  mount(root, h("p", { class: "muted" }, "Loading…"));
  let stopped = false;
  (async () => {
    try {
      const account = await api.account(name);
      const bot = account.kind === "ACCOUNT_BOT";
      const [games, ladder] = await Promise.all([api.gamesOf(account.name || name), bot ? api.bot(account.name).catch(() => null) : null]);
      if (!stopped) render(root, account, games.games || [], ladder);
    } catch (err) {
      if (!stopped) mount(root, h("p", { class: "error" }, `Cannot load player ${name}: ${errorText(err)}`));
    }
  })();
  return () => {
    stopped = true;
  };
}

function render(root, account, games, ladder) {
  const bot = account.kind === "ACCOUNT_BOT";
  const ratings = account.ratings || [];
  const rated = ladder ? (ladder.games || []).filter((g) => !g.validation).reverse() : [];
  mount(
    root,
    h(
      "div",
      { id: "player", "data-player": account.name, "data-kind": bot ? "bot" : "human" },
      h(
        "section",
        { class: "card" },
        h("h1", {}, account.name, " ", h("span", { class: "badge" }, bot ? "bot" : "player")),
        h("p", {}, bot ? `${account.gamesPlayed ?? 0} rated games · ` : "", account.createdAt ? `joined ${new Date(account.createdAt * 1000).toLocaleDateString()}` : "", bot ? [" · ", h("a", { href: `#/bot/${encodeURIComponent(account.name)}` }, "its ladder page")] : null),
        h("h2", {}, "Ratings"),
        ratings.length
          ? h(
              "table",
              { class: "tables ratings" },
              h("thead", {}, h("tr", {}, ["Game", "Players", "Games", "mu", "sigma", "Ordinal"].map((t) => h("th", {}, t)))),
              h(
                "tbody",
                {},
                ratings.map((r) =>
                  h(
                    "tr",
                    { dataset: { gameType: r.gameType, players: String(r.players ?? 0) } },
                    h("td", {}, r.gameType),
                    h("td", {}, String(r.players ?? 0)),
                    h("td", { class: "games" }, String(r.games ?? 0)),
                    h("td", { class: "mu" }, num(r.mu)),
                    h("td", { class: "sigma" }, num(r.sigma)),
                    h("td", { class: "ordinal" }, num(r.ordinal)),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted no-ratings" }, "No rating yet: ratings come from rated games."),
      ),
      ladder
        ? h("section", { class: "card" }, h("h2", {}, "Rating over time"), rated.length > 1 ? ratingChart(rated) : h("p", { class: "muted" }, "Two rated games are needed for a line."))
        : ratings.length
        ? h("section", { class: "card rating-history" }, h("h2", {}, "Rating over time"), ratings.map(historyChart))
        : null,
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Recent games"),
        // A ladder's seats are not bound to accounts: a bot's games are its ladder's.
        ladder && (ladder.games || []).length && !games.length
          ? ladderGames(ladder.games)
          : games.length
          ? h(
              "table",
              { class: "tables player-games" },
              h("thead", {}, h("tr", {}, ["Game", "Players", "Winner", ""].map((t) => h("th", {}, t)))),
              h(
                "tbody",
                {},
                games.map((g) => {
                  const over = g.status === "FINISHED";
                  return h(
                    "tr",
                    { dataset: { gameId: g.gameId } },
                    h("td", {}, h("span", { class: `badge game-${g.gameType}` }, g.gameType)),
                    h("td", { class: "names" }, seatNames(g)),
                    h("td", {}, over ? winnerCell(g) : h("span", { class: "muted" }, "playing")),
                    h("td", {}, h("a", { href: over ? `#/replay/${encodeURIComponent(g.gameId)}` : `#/game/${encodeURIComponent(g.gameId)}` }, over ? "Replay" : "Watch")),
                  );
                }),
              ),
            )
          : h("p", { class: "muted" }, "No game yet."),
      ),
    ),
  );
}

/** One game and player count's rating over time: GetAccount's points (its newest rated
 * games, oldest first), drawn as the bot page draws a ladder bot's. */
function historyChart(r) {
  const points = r.history || [];
  return h(
    "div",
    { class: "history", dataset: { gameType: r.gameType, players: String(r.players ?? 0), points: String(points.length) } },
    h("h3", {}, `${r.gameType}, ${r.players ?? 0} players`),
    points.length > 1 ? ratingChart(points) : h("p", { class: "muted" }, "Two rated games are needed for a line."),
  );
}

/** A ladder bot's recent games (GET /v1/bots/NAME), as its bot page lists them. */
function ladderGames(games) {
  return h(
    "table",
    { class: "tables player-games" },
    h("thead", {}, h("tr", {}, ["Finished", "Opponents", "Result", ""].map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      games.map((g) =>
        h(
          "tr",
          { dataset: { gameId: g.gameId } },
          h("td", {}, g.finishedAt ? new Date(g.finishedAt * 1000).toLocaleString() : "-"),
          h("td", { class: "names" }, (g.opponents || []).join(", ")),
          h("td", {}, g.validation ? h("span", { class: "badge" }, "validation") : num(g.returned)),
          h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(g.gameId)}` }, "Replay")),
        ),
      ),
    ),
  );
}
