// Tournaments: the list, and one tournament's progress, standings (win share with its
// 95% interval and the openskill rating), crosstable and tables (links to the live
// games and to replays), kept current by the tournament's event feed.
import { api, errorText } from "./api.js";
import { h, mount } from "./dom.js";

export function tournamentsPage(root) {
  mount(root, h("p", { class: "muted" }, "Loading…"));
  api
    .listTournaments()
    .then((response) => {
      const list = response.tournaments || [];
      mount(
        root,
        h(
          "section",
          { class: "card" },
          h("h1", {}, "Tournaments"),
          list.length
            ? h(
                "table",
                { class: "tables" },
                h("thead", {}, h("tr", {}, ["Name", "Game", "Games", "Status"].map((t) => h("th", {}, t)))),
                h(
                  "tbody",
                  {},
                  list.map((t) =>
                    h(
                      "tr",
                      {},
                      h("td", {}, h("a", { href: `#/tournament/${encodeURIComponent(t.name)}` }, t.name)),
                      h("td", {}, h("span", { class: `badge game-${t.gameType}` }, t.gameType)),
                      h("td", {}, `${t.finishedGames ?? 0} / ${t.totalGames ?? 0}`),
                      h("td", {}, statusText(t.status)),
                    ),
                  ),
                ),
              )
            : h("p", { class: "muted" }, "No tournament yet. Start one with `gamehost tournament` (docs/tournaments.md)."),
        ),
      );
    })
    .catch((err) => mount(root, h("p", { class: "error" }, errorText(err))));
}

function statusText(status) {
  return (status || "").replace("TOURNAMENT_", "").toLowerCase() || "-";
}

function duration(seconds) {
  const s = Math.round(seconds || 0);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function pct(x) {
  return `${(100 * (x || 0)).toFixed(1)}%`;
}

export function tournamentPage(root, [name]) {
  mount(root, h("p", { class: "muted" }, "Loading…"));
  let source = null;
  let pending = null;
  let stopped = false;
  const load = async () => {
    try {
      const t = await api.tournament(name);
      if (!stopped) render(root, t);
    } catch (err) {
      mount(root, h("p", { class: "error" }, `Cannot load tournament ${name}: ${errorText(err)}`));
    }
  };
  load().then(() => {
    if (stopped) return;
    // Each event means new standings or tables: reload at most once a second.
    source = api.watchTournament(name, (event) => {
      if (event.kind === "TOURNAMENT_FINISHED" || event.kind === "TOURNAMENT_CANCELLED") source.close();
      if (pending) return;
      pending = setTimeout(() => {
        pending = null;
        load();
      }, 1000);
    });
  });
  return () => {
    stopped = true;
    if (source) source.close();
    clearTimeout(pending);
  };
}

function render(root, t) {
  const def = t.definition || {};
  const progress = t.progress || {};
  const total = progress.totalGames ?? 0;
  const done = progress.finishedGames ?? 0;
  mount(
    root,
    h(
      "div",
      { class: "tournament", id: "tournament", "data-status": t.status || "", "data-finished-games": done },
      h(
        "div",
        { class: "game-head" },
        h("h1", {}, h("span", { class: `badge game-${def.gameType}` }, def.gameType), ` ${def.name}`),
        h("span", { class: "pill" }, statusText(t.status)),
        h("span", { class: "muted" }, `${def.format || "round-robin"} · ${def.players ?? 0} seats a table · ${(def.entrants || []).length} entrants${def.duplicate ? " · duplicate deals" : ""}`),
      ),
      h(
        "section",
        { class: "card" },
        h("h2", {}, "Progress"),
        h("div", { class: "progress", role: "progressbar", "aria-valuemin": 0, "aria-valuemax": total, "aria-valuenow": done }, h("span", { style: `width:${total ? (100 * done) / total : 0}%` })),
        h("p", { class: "small" }, `${done} of ${total} games finished · ${progress.runningTables ?? 0} tables running · ${duration(progress.elapsedSeconds)} elapsed${progress.estimatedSecondsLeft ? ` · about ${duration(progress.estimatedSecondsLeft)} left` : ""}`),
      ),
      h("div", { class: "tournament-grid" }, standings(t), crosstable(t.crosstableCsv || "")),
      tables(t),
    ),
  );
}

function standings(t) {
  const rows = t.standings || [];
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Standings"),
    h(
      "table",
      { class: "standings", id: "standings" },
      h("thead", {}, h("tr", {}, ["#", "Entrant", "Level", "Games", "Points", "Win share (95% interval)", "", "Rating μ ± σ"].map((x) => h("th", {}, x)))),
      h(
        "tbody",
        {},
        rows.map((row, i) =>
          h(
            "tr",
            { "data-entrant": row.entrant },
            h("td", {}, String(i + 1)),
            h("td", {}, h("strong", {}, row.entrant)),
            h("td", { class: "muted" }, row.level || "external"),
            h("td", {}, String(row.games ?? 0)),
            h("td", {}, (row.points ?? 0).toFixed(1)),
            h("td", {}, `${pct(row.winShare)} (${pct(row.ciLow)}–${pct(row.ciHigh)})`),
            h("td", {}, h("div", { class: "ci", title: "win share and its 95% interval" }, h("span", { class: "range", style: `left:${100 * (row.ciLow || 0)}%;width:${100 * ((row.ciHigh || 0) - (row.ciLow || 0))}%` }), h("span", { class: "point", style: `left:calc(${100 * (row.winShare || 0)}% - 1px)` }))),
            h("td", {}, `${(row.mu ?? 0).toFixed(1)} ± ${(row.sigma ?? 0).toFixed(1)}`),
          ),
        ),
      ),
    ),
    (t.seatWinShare || []).length ? h("p", { class: "small muted" }, `Win share by seat position: ${t.seatWinShare.map((x, seat) => `seat ${seat} ${pct(x)}`).join(", ")}`) : null,
  );
}

function parseCsv(text) {
  return text
    .trim()
    .split(/\r?\n/)
    .filter(Boolean)
    .map((line) => line.split(","));
}

function crosstable(csv) {
  const rows = parseCsv(csv);
  if (rows.length < 2) return h("section", { class: "card" }, h("h2", {}, "Crosstable"), h("p", { class: "muted" }, "No games yet."));
  const [head, ...body] = rows;
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Crosstable"),
    h("p", { class: "small muted" }, "Each cell: the row entrant's result against the column entrant, from crosstable.csv."),
    h(
      "table",
      { class: "crosstable", id: "crosstable" },
      h("thead", {}, h("tr", {}, head.map((x) => h("th", {}, x)))),
      h("tbody", {}, body.map((row) => h("tr", {}, row.map((cell, i) => h("td", { class: i === 0 ? "" : `num${cell === "" || cell === "-" ? " self" : ""}` }, i === 0 ? h("strong", {}, cell) : cell))))),
    ),
  );
}

function tables(t) {
  const list = [...(t.tables || [])].reverse();
  return h(
    "section",
    { class: "card" },
    h("h2", {}, `Tables (${list.length} started)`),
    h(
      "table",
      { class: "tables", id: "tables" },
      h("thead", {}, h("tr", {}, ["Table", "Round", "Seats", "Result", ""].map((x) => h("th", {}, x)))),
      h(
        "tbody",
        {},
        list.slice(0, 200).map((table) => {
          const id = table.gameId || "";
          const link = !id ? "" : table.finished ? h("a", { href: `#/replay/${id}`, class: "button" }, "Replay") : h("a", { href: `#/game/${id}`, class: "button live" }, "Watch live");
          return h(
            "tr",
            {},
            h("td", {}, String(table.index ?? 0)),
            h("td", {}, String(table.round ?? 0)),
            h("td", {}, (table.seats || []).join(", ")),
            h("td", {}, table.finished ? (table.returns || []).map((r) => Number(r).toFixed(2)).join(" / ") : h("span", { class: "badge" }, "playing")),
            h("td", {}, h("div", { class: "links" }, link)),
          );
        }),
      ),
    ),
  );
}
