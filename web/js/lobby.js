// The lobby: game types, a form to create a game (human or bot per seat), and the
// live and finished games with links to play, watch or replay them.
import { accountKey, signedIn } from "./account.js";
import { api, errorText } from "./api.js";
import { h, mount } from "./dom.js";
import { seatNames, winnerCell } from "./names.js";
import { rememberInvites, rememberSeat, seatsHeld } from "./seats.js";

const GAME_ART = { catan: "⬢", endeavor: "⚓", cite: "♜" };

export function lobbyPage(root) {
  mount(root, h("p", { class: "muted" }, "Loading the lobby…"));
  let stopped = false;
  let timer = null;
  Promise.all([api.gameTypes(), api.listGames(100), api.listTournaments().catch(() => ({}))])
    .then(([types, games, tournaments]) => {
      if (stopped) return;
      const list = h("div", { id: "game-lists" });
      mount(
        root,
        h("div", { class: "lobby" }, h("div", {}, createForm(types), tournamentList(tournaments)), list),
      );
      renderGames(list, games.games || []);
      // The lists refresh while the lobby is open: new games and finished ones show up.
      timer = setInterval(async () => {
        try {
          renderGames(list, (await api.listGames(100)).games || []);
        } catch {
          /* keep the old list on a failed refresh */
        }
      }, 5000);
    })
    .catch((err) => mount(root, h("p", { class: "error" }, `Cannot load the lobby: ${errorText(err)}`)));
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

function createForm(types) {
  const gameTypes = types.gameTypes || [];
  const levels = types.botLevels || ["random"];
  let chosen = gameTypes[0];
  const seatsBox = h("div", { class: "seat-specs" });
  const optionsBox = h("div", { class: "options" });
  const players = h("select", { id: "players", "aria-label": "players" });
  const message = h("p", { class: "error", role: "alert" });

  const typeCards = h(
    "div",
    { class: "type-cards", role: "radiogroup", "aria-label": "game type" },
    gameTypes.map((type) => {
      const input = h("input", {
        type: "radio",
        name: "game-type",
        value: type.name,
        id: `type-${type.name}`,
        checked: type === chosen,
        onchange: () => {
          chosen = type;
          fillPlayers();
        },
      });
      return h(
        "label",
        { class: `type-card game-${type.name}`, for: `type-${type.name}` },
        input,
        h("span", { class: "type-art", "aria-hidden": "true" }, GAME_ART[type.name] || "◆"),
        h("strong", {}, type.title || type.name),
        h("span", { class: "muted small" }, `${type.minPlayers}–${type.maxPlayers} players`),
        h("span", { class: "summary" }, type.summary || ""),
      );
    }),
  );

  function fillPlayers() {
    const min = chosen.minPlayers || 2;
    const max = chosen.maxPlayers || min;
    mount(
      players,
      Array.from({ length: max - min + 1 }, (_, i) =>
        h("option", { value: min + i, selected: min + i === Math.min(max, Math.max(min, 3)) }, `${min + i}`),
      ),
    );
    fillSeats();
    mount(
      optionsBox,
      Object.entries(chosen.defaultOptions || {}).map(([key, value]) =>
        h(
          "label",
          { class: "option" },
          h("span", {}, key.replace(/_/g, " ")),
          h("input", { name: key, value, "data-option": key }),
        ),
      ),
    );
  }

  function fillSeats() {
    const count = Number(players.value);
    mount(
      seatsBox,
      Array.from({ length: count }, (_, seat) => {
        const kind = h(
          "select",
          { "data-seat-kind": seat, "aria-label": `seat ${seat} player` },
          h("option", { value: "HUMAN", selected: seat === 0 }, "Human"),
          h("option", { value: "BOT", selected: seat !== 0 }, "Bot"),
        );
        const level = h(
          "select",
          { "data-seat-level": seat, "aria-label": `seat ${seat} bot level`, disabled: seat === 0 },
          levels.map((l) => h("option", { value: l, selected: l === "greedy" }, l)),
        );
        // Signed in, your seat is named as your account.
        const account = seat === 0 ? signedIn() : null;
        const name = h("input", {
          "data-seat-name": seat,
          placeholder: seat === 0 ? "your name" : "name (optional)",
          "aria-label": `seat ${seat} name`,
          value: account ? account.name : null,
          readonly: !!account,
        });
        kind.addEventListener("change", () => {
          level.disabled = kind.value !== "BOT";
        });
        return h("div", { class: "seat-spec" }, h("span", { class: `seat-dot seat-${seat}` }), `Seat ${seat}`, kind, level, name);
      }),
    );
  }

  players.addEventListener("change", fillSeats);
  if (chosen) fillPlayers();

  async function create(event) {
    event.preventDefault();
    message.textContent = "";
    const seats = [...seatsBox.querySelectorAll(".seat-spec")].map((row, seat) => {
      const kind = row.querySelector(`[data-seat-kind="${seat}"]`).value;
      const name = row.querySelector(`[data-seat-name="${seat}"]`).value.trim();
      return kind === "BOT"
        ? { kind, botLevel: row.querySelector(`[data-seat-level="${seat}"]`).value, name }
        : { kind, name };
    });
    const options = {};
    for (const input of optionsBox.querySelectorAll("input[data-option]")) {
      options[input.dataset.option] = input.value.trim();
    }
    const access = {
      private: form.querySelector("#private").checked,
      spectators: form.querySelector("#spectators").checked,
    };
    try {
      const created = await api.createGame({ gameType: chosen.name, seats, options, ...access });
      const codes = Object.fromEntries((created.inviteCodes || []).map((c) => [c.seat ?? 0, c.code]));
      rememberInvites(created.gameId, codes);
      const firstHuman = seats.findIndex((spec) => spec.kind === "HUMAN");
      if (firstHuman >= 0) {
        const joined = await api.join(created.gameId, firstHuman, seats[firstHuman].name, codes[firstHuman], accountKey());
        rememberSeat(created.gameId, joined.seat ?? 0, joined.token);
        window.location.hash = `#/game/${created.gameId}?seat=${joined.seat ?? 0}`;
      } else {
        window.location.hash = `#/game/${created.gameId}`;
      }
    } catch (err) {
      message.textContent = errorText(err);
    }
  }

  const form = h(
    "form",
    { class: "card create-game", id: "create-game", onsubmit: create },
    h("h2", {}, "New game"),
    typeCards,
    h("div", { class: "row" }, h("label", { for: "players" }, "Players "), players),
    seatsBox,
    optionsBox,
    h(
      "div",
      { class: "row wrap access" },
      h("label", {}, h("input", { type: "checkbox", id: "private" }), " private (unlisted; seats by invite link)"),
      h("label", {}, h("input", { type: "checkbox", id: "spectators", checked: true }), " spectators allowed"),
    ),
    h("button", { type: "submit", class: "primary", id: "create" }, "Create game"),
    message,
  );
  return form;
}

function renderGames(box, games) {
  const live = games.filter((g) => g.status !== "FINISHED");
  const finished = games.filter((g) => g.status === "FINISHED");
  mount(
    box,
    h("section", { class: "card" }, h("h2", {}, `Live games (${live.length})`), gameTable(live, false)),
    h("section", { class: "card" }, h("h2", {}, `Finished games (${finished.length})`), gameTable(finished, true)),
  );
}

function gameTable(games, finished) {
  if (!games.length) return h("p", { class: "muted" }, finished ? "None yet." : "No game is running: create one.");
  return h("div", { class: "table-scroll" }, h(
    "table",
    { class: "games" },
    h("thead", {}, h("tr", {}, ["Game", "Type", "Players", finished ? "Winner" : "Free", "Steps", ""].map((t) => h("th", {}, t)))),
    h(
      "tbody",
      {},
      games.map((g) => {
        const free = g.freeSeats ?? 0;
        // A game this browser holds a seat in opens as that seat, not as a spectator.
        const mine = Object.keys(seatsHeld(g.gameId)).map(Number).sort((a, b) => a - b);
        const links = mine.length
          ? mine.map((seat) => h("a", { href: `#/game/${g.gameId}?seat=${seat}`, class: "button resume", "data-seat": seat }, finished ? `View as seat ${seat}` : `Resume as seat ${seat}`))
          : [h("a", { href: `#/game/${g.gameId}`, class: "button" }, finished ? "View" : "Watch")];
        if (finished) links.push(h("a", { href: `#/replay/${g.gameId}`, class: "button" }, "Replay"));
        if (!finished && free > 0) {
          links.push(
            h("button", { type: "button", onclick: () => joinAny(g.gameId) }, `Join (${free} free)`),
          );
        }
        return h(
          "tr",
          { "data-game-id": g.gameId },
          h("td", { class: "mono" }, g.gameId.slice(0, 8)),
          h("td", {}, h("span", { class: `badge game-${g.gameType}` }, g.gameType)),
          h("td", { class: "names" }, seatNames(g)),
          h("td", { dataset: { label: finished ? "Won by" : "Free" } }, finished ? winnerCell(g) : `${free}`),
          // The version: every change, moves and chance's (dice, deals) alike.
          h("td", { class: "steps", title: "changes so far: moves, dice and deals", dataset: { label: "Steps" } }, g.version ?? "0"),
          h("td", {}, h("div", { class: "links" }, links)),
        );
      }),
    ),
  ));
}

async function joinAny(gameId) {
  try {
    const account = signedIn();
    const joined = await api.join(gameId, null, account ? account.name : "", "", accountKey());
    rememberSeat(gameId, joined.seat ?? 0, joined.token);
    window.location.hash = `#/game/${gameId}?seat=${joined.seat ?? 0}`;
  } catch (err) {
    alert(errorText(err));
  }
}

function tournamentList(response) {
  const list = response.tournaments || [];
  return h(
    "section",
    { class: "card" },
    h("h2", {}, "Tournaments"),
    list.length
      ? h(
          "ul",
          { class: "plain" },
          list.slice(0, 10).map((t) =>
            h(
              "li",
              {},
              h("a", { href: `#/tournament/${encodeURIComponent(t.name)}` }, t.name),
              ` · ${t.gameType} · ${t.finishedGames ?? 0}/${t.totalGames ?? 0} games · `,
              h("span", { class: "muted" }, (t.status || "").replace("TOURNAMENT_", "").toLowerCase()),
            ),
          ),
        )
      : h("p", { class: "muted" }, "None yet: ", h("code", {}, "gamehost tournament"), " starts one."),
  );
}
