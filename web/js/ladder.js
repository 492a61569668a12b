// The ladder (docs/ladder.md): a ladder's standings (registered bots and house levels,
// rated with openskill in duplicate sets), and a bot's page: its account, its rating
// over time (mu and the ordinal after each rated game, drawn in SVG) and its recent
// games, each opening its replay. Both reload every few seconds while shown.
import { api, errorText } from "./api.js";
import { h, mount, s } from "./dom.js";

const REFRESH_MS = 5000;

function num(x, digits = 2) {
  return Number(x || 0).toFixed(digits);
}

function pct(x) {
  return `${(100 * (x || 0)).toFixed(1)}%`;
}

function statusText(status) {
  return (status || "").replace("BOT_", "").toLowerCase() || "-";
}

function botLink(row) {
  return row.level ? h("span", { title: "a house level" }, row.bot) : h("a", { href: `#/bot/${encodeURIComponent(row.bot)}` }, row.bot);
}

/** Runs `load` now and every REFRESH_MS until the page is left. */
function refreshing(load) {
  let stopped = false;
  let timer = null;
  const tick = async () => {
    await load(() => stopped);
    if (!stopped) timer = setTimeout(tick, REFRESH_MS);
  };
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

export function ladderPage(root, _args, query) {
  mount(root, h("p", { class: "muted" }, "Loading…"));
  const game = query.get("game") || "";
  const players = query.get("players") || "";
  return refreshing(async (stopped) => {
    try {
      const ladder = await api.ladder(game, players);
      if (!stopped()) renderLadder(root, ladder);
    } catch (err) {
      if (!stopped()) mount(root, h("p", { class: "error" }, `No ladder here: ${errorText(err)}`));
    }
  });
}

// The standings' columns; each cell carries its column's name too (data-label), which
// a phone shows beside the value, as the table folds into one block per bot.
const COLUMNS = ["#", "Bot", "Level", "Games", "mu", "sigma", "Ordinal", "Win share", "95% interval"];

function cell(column, content, attrs = {}) {
  return h("td", { ...attrs, dataset: { label: COLUMNS[column] } }, content);
}

function renderLadder(root, ladder) {
  const name = `${ladder.gameType}:${ladder.players}`;
  const rows = ladder.standings || [];
  mount(
    root,
    h(
      "section",
      { class: "card", id: "ladder", "data-ladder": name },
      h(
        "div",
        { class: "game-head" },
        h("h1", {}, "Ladder ", h("span", { class: `badge game-${ladder.gameType}` }, ladder.gameType), ` ${ladder.players ?? 0} players`),
        (ladder.ladders || []).length > 1
          ? h(
              "nav",
              { class: "links" },
              ladder.ladders.map((other) => {
                const [g, p] = other.split(":");
                return h("a", { href: `#/ladder?game=${g}&players=${p}`, class: other === name ? "pill" : "" }, other);
              }),
            )
          : null,
      ),
      h("p", { class: "small muted" }, `House levels: ${(ladder.house || []).join(", ")}. Rated with openskill (Plackett-Luce) in duplicate sets; the ordinal is mu − 3 sigma. Bots connect with `, h("code", {}, "gamehost bot run"), " (docs/bot-protocol.md)."),
      rows.length
        ? h(
            "table",
            { class: "standings" },
            h("thead", {}, h("tr", {}, COLUMNS.map((t) => h("th", {}, t)))),
            h(
              "tbody",
              {},
              rows.map((row, i) =>
                h(
                  "tr",
                  { dataset: { bot: row.bot } },
                  cell(0, String(i + 1)),
                  cell(1, botLink(row)),
                  cell(2, row.level || "bot"),
                  cell(3, String(row.games ?? 0), { class: "num" }),
                  cell(4, num(row.mu), { class: "num" }),
                  cell(5, num(row.sigma), { class: "num" }),
                  cell(6, num(row.ordinal), { class: "num" }),
                  cell(7, pct(row.winShare), { class: "num" }),
                  cell(8, `${pct(row.ciLow)} – ${pct(row.ciHigh)}`, { class: "num" }),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, "No rated game yet."),
    ),
  );
}

export function botPage(root, [name]) {
  mount(root, h("p", { class: "muted" }, "Loading…"));
  return refreshing(async (stopped) => {
    try {
      const page = await api.bot(name);
      if (!stopped()) renderBot(root, page);
    } catch (err) {
      if (!stopped()) mount(root, h("p", { class: "error" }, `Cannot load bot ${name}: ${errorText(err)}`));
    }
  });
}

function renderBot(root, page) {
  const bot = page.bot || {};
  const faults = bot.faults || {};
  const standing = page.standing;
  const games = page.games || [];
  const rated = games.filter((g) => !g.validation).reverse(); // oldest first, for the chart
  mount(
    root,
    h(
      "div",
      { id: "bot", "data-bot": bot.bot, "data-status": statusText(bot.status) },
      h(
        "section",
        { class: "card" },
        h(
          "div",
          { class: "game-head" },
          h("h1", {}, bot.bot, " ", h("span", { class: `badge game-${bot.gameType}` }, `${bot.gameType}:${bot.players}`)),
          h("span", { class: "pill status" }, statusText(bot.status)),
          bot.connected ? h("span", { class: "pill" }, "connected") : h("span", { class: "muted" }, "not connected"),
        ),
        bot.reason ? h("p", { class: "muted reason" }, bot.reason) : null,
        h(
          "p",
          {},
          `${bot.games ?? 0} rated games · ${bot.moves ?? 0} moves of its own · faults: ${faults.late ?? 0} late, ${faults.garbage ?? 0} garbage, ${faults.illegal ?? 0} illegal, ${faults.missing ?? 0} missing`,
        ),
        standing
          ? h("p", {}, `Rating: mu ${num(standing.mu)}, sigma ${num(standing.sigma)}, ordinal ${num(standing.ordinal)}; win share ${pct(standing.winShare)} (${pct(standing.ciLow)} – ${pct(standing.ciHigh)}). `, h("a", { href: `#/ladder?game=${bot.gameType}&players=${bot.players}` }, "The ladder"))
          : h("p", { class: "muted" }, "Not rated yet."),
      ),
      h("section", { class: "card" }, h("h2", {}, "Rating over time"), rated.length > 1 ? ratingChart(rated) : h("p", { class: "muted" }, "Two rated games are needed for a line.")),
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Recent games"),
        games.length
          ? h(
              "table",
              { class: "tables bot-games" },
              h("thead", {}, h("tr", {}, ["Finished", "Opponents", "Seat", "Result", "Rating after", ""].map((t) => h("th", {}, t)))),
              h(
                "tbody",
                {},
                games.map((g) =>
                  h(
                    "tr",
                    { dataset: { gameId: g.gameId } },
                    h("td", {}, g.finishedAt ? new Date(g.finishedAt * 1000).toLocaleString() : "-"),
                    h("td", {}, (g.opponents || []).join(", ")),
                    h("td", {}, String(g.seat ?? 0)),
                    h("td", {}, num(g.returned, 2)),
                    h("td", {}, g.validation ? h("span", { class: "badge" }, "validation") : `${num(g.mu)} ± ${num(g.sigma)}`),
                    h("td", {}, h("a", { href: `#/replay/${encodeURIComponent(g.gameId)}` }, "Replay")),
                  ),
                ),
              ),
            )
          : h("p", { class: "muted" }, "No finished game yet."),
      ),
    ),
  );
}

/** mu (solid) and the ordinal (dashed) after each rated game, oldest on the left. */
export function ratingChart(games) {
  const width = 640;
  const height = 200;
  const pad = 32;
  const mus = games.map((g) => g.mu || 0);
  const ordinals = games.map((g) => g.ordinal || 0);
  const low = Math.min(...ordinals, ...mus);
  const high = Math.max(...ordinals, ...mus);
  const span = high - low || 1;
  const x = (i) => pad + (i * (width - 2 * pad)) / Math.max(1, games.length - 1);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / span;
  const line = (values) => values.map((v, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  return s(
    "svg",
    { viewBox: `0 0 ${width} ${height}`, class: "rating-chart", role: "img", "aria-label": `Rating over ${games.length} rated games` },
    s("line", { x1: pad, y1: height - pad, x2: width - pad, y2: height - pad, stroke: "#bbb" }),
    s("text", { x: 2, y: y(high) + 4, "font-size": 11 }, num(high, 1)),
    s("text", { x: 2, y: y(low) + 4, "font-size": 11 }, num(low, 1)),
    s("path", { d: line(mus), fill: "none", stroke: "#1b6ec2", "stroke-width": 2, class: "mu" }),
    s("path", { d: line(ordinals), fill: "none", stroke: "#6b4c9a", "stroke-width": 2, "stroke-dasharray": "5 4", class: "ordinal" }),
    s("text", { x: width - pad, y: 14, "text-anchor": "end", "font-size": 11 }, "mu (solid), ordinal (dashed)"),
  );
}
