// The signed-in player's pages: "Sign in" (#/account: pick a name, or paste the key
// of an account made on another device; "copy my key"; sign out) and "My games"
// (#/me: the account's games, live first, your turn marked, each continued with the
// account's seat; and "Play now", quick play's queue).
import { signIn, signOut, signedIn } from "./account.js";
import { api, errorText } from "./api.js";
import { h, mount } from "./dom.js";
import { seatNames, winnerCell } from "./names.js";
import { rememberSeat } from "./seats.js";

const REFRESH_MS = 5000;

export function accountPage(root) {
  const account = signedIn();
  if (account) {
    const shown = h("input", { id: "key-shown", readonly: true, class: "secret", hidden: true, "aria-label": "your key" });
    const copy = async () => {
      shown.value = account.key;
      shown.hidden = false; // to copy by hand where the clipboard is refused
      shown.select();
      await navigator.clipboard?.writeText(account.key).catch(() => {});
    };
    mount(
      root,
      h(
        "section",
        { class: "card narrow", id: "account", "data-account": account.name },
        h("h1", {}, "Signed in as ", h("a", { href: `#/player/${encodeURIComponent(account.name)}` }, account.name)),
        h("p", {}, "Your key is kept in this browser. To play as ", account.name, " on another device, copy it there and sign in with it: whoever has it plays as you."),
        h("div", { class: "row wrap" }, h("button", { type: "button", id: "copy-key", onclick: copy }, "Copy my key"), h("a", { class: "button", href: "#/me" }, "My games"), h("button", { type: "button", id: "sign-out", onclick: () => { signOut(); accountPage(root); } }, "Sign out")),
        shown,
      ),
    );
    return;
  }
  mount(root, h("div", { class: "account-forms" }, createForm(), keyForm()));
}

function createForm() {
  const name = h("input", { id: "account-name", placeholder: "a name: letters, digits, . _ -", "aria-label": "your name", maxlength: 40, autocomplete: "username" });
  const message = h("p", { class: "error", role: "alert" });
  return h(
    "form",
    {
      class: "card narrow",
      id: "create-account",
      onsubmit: async (event) => {
        event.preventDefault();
        message.textContent = "";
        try {
          const made = await api.createAccount(name.value.trim());
          signIn(made.account, made.key);
          window.location.hash = "#/me";
        } catch (err) {
          message.textContent = errorText(err);
        }
      },
    },
    h("h1", {}, "Sign in"),
    h("p", {}, "Pick a name: it makes your account, and your games are kept under it. No password: this browser keeps your key."),
    h("div", { class: "row" }, name, h("button", { type: "submit", class: "primary" }, "Create")),
    message,
  );
}

function keyForm() {
  const name = h("input", { id: "signin-name", placeholder: "your name", "aria-label": "account name", maxlength: 40 });
  const key = h("input", { id: "signin-key", placeholder: "gha_…", "aria-label": "your key", type: "password", autocomplete: "off" });
  const message = h("p", { class: "error", role: "alert" });
  return h(
    "form",
    {
      class: "card narrow",
      id: "key-sign-in",
      onsubmit: async (event) => {
        event.preventDefault();
        message.textContent = "";
        const account = name.value.trim();
        const secret = key.value.trim();
        try {
          await api.myGames(secret, account); // refused unless the key is this account's
          const info = await api.account(account);
          signIn(info.name || account, secret);
          window.location.hash = "#/me";
        } catch (err) {
          message.textContent = errorText(err);
        }
      },
    },
    h("h2", {}, "Already have an account?"),
    h("p", { class: "small muted" }, "Paste the key you copied on your other device."),
    h("div", { class: "row wrap" }, name, key, h("button", { type: "submit" }, "Sign in")),
    message,
  );
}

export function myGamesPage(root) {
  const account = signedIn();
  if (!account) {
    mount(root, h("p", { class: "card" }, h("a", { href: "#/account" }, "Sign in"), " to see your games."));
    return null;
  }
  const list = h("section", { class: "card", id: "my-games" }, h("p", { class: "muted" }, "Loading your games…"));
  const play = h("section", { class: "card", id: "play-now" });
  mount(root, h("div", { class: "me" }, play, list));
  let stopped = false;
  let timer = null;
  const stopQueue = playNow(play, account);
  const load = async () => {
    try {
      const mine = await api.myGames(account.key);
      if (!stopped) renderMine(list, account, mine.games || []);
    } catch (err) {
      if (!stopped) mount(list, h("p", { class: "error" }, `Cannot list your games: ${errorText(err)}`));
    }
    if (!stopped) timer = setTimeout(load, REFRESH_MS);
  };
  load();
  return () => {
    stopped = true;
    clearTimeout(timer);
    stopQueue();
  };
}

function renderMine(box, account, games) {
  mount(
    box,
    h("h1", {}, "My games"),
    games.length
      ? h(
          "table",
          { class: "tables my-games" },
          h("thead", {}, h("tr", {}, ["Game", "Players", "State", ""].map((t) => h("th", {}, t)))),
          h(
            "tbody",
            {},
            games.map((g) => {
              const live = g.status !== "FINISHED";
              let state = winnerCell(g);
              if (live) state = g.yourTurn ? h("span", { class: "badge you" }, "your turn") : h("span", { class: "muted" }, "waiting");
              return h(
                "tr",
                { dataset: { gameId: g.gameId, yourTurn: g.yourTurn ? "true" : "false", status: g.status } },
                h("td", {}, h("span", { class: `badge game-${g.gameType}` }, g.gameType)),
                h("td", { class: "names" }, seatNames(g)),
                h("td", {}, live ? state : ["over · won by ", state]),
                h("td", {}, h("button", { type: "button", class: "continue", onclick: (e) => openSeat(e.target, g.gameId, account.key) }, live ? "Continue" : "View")),
              );
            }),
          ),
        )
      : h("p", { class: "muted" }, "No game yet: press Play now, or take a seat in the lobby."),
  );
}

/** Fetches the account's seat (and its token) in a game and opens the game as it. */
async function openSeat(button, gameId, key) {
  try {
    const seat = await api.mySeat(gameId, key);
    rememberSeat(gameId, seat.seat ?? 0, seat.token);
    window.location.hash = `#/game/${gameId}?seat=${seat.seat ?? 0}`;
  } catch (err) {
    button.after(h("span", { class: "error" }, errorText(err)));
  }
}

/** "Play now": queue for a game (POST /v1/me/queue answers once matched), show the
 * wait, leave with one call; matched, open the game as the seat given. */
function playNow(box, account) {
  let queued = null; // {controller, started, timer} while in the queue
  const types = h("select", { id: "quick-type", "aria-label": "game type" });
  const players = h("select", { id: "quick-players", "aria-label": "players" });
  const wait = h("span", { id: "queue-wait", class: "muted", "aria-live": "polite" });
  const message = h("p", { class: "error", role: "alert" });
  const start = h("button", { type: "submit", class: "primary", id: "play-now-button" }, "Play now");
  const cancel = h("button", { type: "button", id: "leave-queue", hidden: true, onclick: () => leave() }, "Cancel");
  let known = [];

  function fillPlayers() {
    const type = known.find((t) => t.name === types.value) || {};
    const min = type.minPlayers || 2;
    const max = type.maxPlayers || min;
    mount(players, Array.from({ length: max - min + 1 }, (_, i) => h("option", { value: min + i }, `${min + i} players`)));
  }
  types.addEventListener("change", fillPlayers);
  api.gameTypes().then((answer) => {
    known = answer.gameTypes || [];
    mount(types, known.map((t) => h("option", { value: t.name }, t.title || t.name)));
    fillPlayers();
  }, (err) => (message.textContent = errorText(err)));

  function stopWaiting() {
    if (!queued) return;
    clearInterval(queued.timer);
    queued = null;
    wait.textContent = "";
    start.disabled = false;
    cancel.hidden = true;
  }

  async function leave() {
    if (!queued) return;
    queued.controller.abort();
    stopWaiting();
    try {
      await api.leaveQueue(account.key);
    } catch (err) {
      // NOT_FOUND: out already. The call just aborted takes its account out of the
      // queue as it ends (or it was matched that moment: the game is under My games).
      if (err.status !== "NOT_FOUND") message.textContent = errorText(err);
    }
  }

  async function join(event) {
    event.preventDefault();
    if (queued) return;
    message.textContent = "";
    const started = Date.now();
    const tick = () => {
      const s = Math.floor((Date.now() - started) / 1000);
      wait.textContent = `Waiting for players… ${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
    };
    queued = { controller: new AbortController(), timer: setInterval(tick, 1000) };
    const mine = queued;
    tick();
    start.disabled = true;
    cancel.hidden = false;
    try {
      const match = await api.queue(account.key, types.value, Number(players.value), mine.controller.signal);
      if (queued !== mine) return;
      stopWaiting();
      rememberSeat(match.gameId, match.seat ?? 0, match.token);
      window.location.hash = `#/game/${match.gameId}?seat=${match.seat ?? 0}`;
    } catch (err) {
      if (queued !== mine) return; // left the queue
      stopWaiting();
      message.textContent = errorText(err);
    }
  }

  mount(
    box,
    h(
      "form",
      { class: "quick-play", onsubmit: join },
      h("h2", {}, "Play now"),
      h("p", { class: "small muted" }, "Matched with players near your rating; seats still empty after a short wait get bots of your level."),
      h("div", { class: "row wrap" }, types, players, start, cancel, wait),
      message,
    ),
  );
  return () => leave();
}
