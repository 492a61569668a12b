// A game page: the board and panels drawn by the game's module, the players, the
// legal actions as buttons (and as clickable parts of the board), a notation box,
// the event log, and live updates from the event feed (server-sent events).
import { api, ApiError, requestId } from "./api.js";
import { clickable, h, mount } from "./dom.js";
import { GAMES, viewOf } from "./games/index.js";
import { invitesFor, rememberSeat, seatColour, seatLabel, seatsHeld } from "./seats.js";

const BIG_GROUP = 10; // legal actions of one verb past which they fold behind <details>

export function gamePage(root, [gameId], query) {
  const held = seatsHeld(gameId);
  let token = query.get("token") || "";
  let notice = "";
  if (!token && query.has("seat")) {
    token = held[query.get("seat")] || "";
    if (!token) notice = `This browser holds no token for seat ${query.get("seat")}: watching as a spectator.`;
  }
  const page = new GamePage(root, gameId, token, held, notice);
  page.start();
  return () => page.stop();
}

class GamePage {
  constructor(root, gameId, token, held, notice) {
    this.root = root;
    this.gameId = gameId;
    this.token = token;
    this.held = held;
    this.notice = notice;
    this.state = null;
    this.source = null;
    this.refreshing = null;
    this.dirty = false;
    this.stopped = false;
    this.submitting = false;
    this.selection = {}; // game-specific UI choices (a chosen card, a draft offer…)
    this.build();
  }

  build() {
    this.el = {
      title: h("h1", { class: "game-title" }),
      status: h("div", { class: "status-line", id: "status", "aria-live": "polite" }),
      bot: h("div", { class: "bot-status", id: "bot-status", hidden: true }),
      message: h("div", { class: "error", id: "message", role: "alert" }),
      board: h("div", { class: "board", id: "board" }),
      panels: h("div", { class: "panels", id: "panels" }),
      actions: h("section", { class: "card actions", id: "actions", "aria-label": "your actions" }),
      share: h("section", { class: "card share", id: "share" }),
      log: h("ol", { class: "log", id: "log", "aria-label": "game log" }),
    };
    this.container = h(
      "div",
      { class: "game-page", id: "game", "data-game-id": this.gameId },
      h(
        "div",
        { class: "game-head" },
        this.el.title,
        this.el.status,
        this.el.bot,
      ),
      this.notice ? h("p", { class: "notice" }, this.notice) : null,
      this.el.message,
      h(
        "div",
        { class: "game-layout" },
        h("div", { class: "game-main" }, this.el.board, this.el.panels),
        h(
          "aside",
          { class: "game-side" },
          this.el.actions,
          h("section", { class: "card" }, h("h2", {}, "Log"), this.el.log),
          this.el.share,
        ),
      ),
    );
    mount(this.root, this.container);
    this.keyHandler = (event) => {
      if (event.key === "/" && document.activeElement?.tagName !== "INPUT") {
        event.preventDefault();
        this.root.querySelector("#notation")?.focus();
      }
    };
    document.addEventListener("keydown", this.keyHandler);
  }

  async start() {
    try {
      this.state = await api.state(this.gameId, this.token);
    } catch (err) {
      mount(this.root, h("p", { class: "error" }, `Cannot open game ${this.gameId}: ${err.message}`), h("a", { href: "#/" }, "Back to the lobby"));
      return;
    }
    this.render();
    this.openFeed("0");
  }

  stop() {
    this.stopped = true;
    document.title = "gamehost";
    if (this.source) this.source.close();
    document.removeEventListener("keydown", this.keyHandler);
  }

  openFeed(after) {
    this.source = api.watchGame(
      this.gameId,
      this.token,
      after,
      (event) => this.onEvent(event),
      (err) => this.showError(err),
    );
  }

  onEvent(event) {
    this.addLog(event);
    const known = Number(this.state?.lastEventId ?? 0);
    if (Number(event.eventId ?? 0) > known) this.refresh();
    if (event.kind === "GAME_FINISHED" && this.source) {
      this.source.close(); // the stream ends with the game; no reconnect loop
    }
  }

  /** GetState again; one request at a time, one more if events arrived meanwhile. */
  refresh() {
    if (this.refreshing) {
      this.dirty = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.dirty = false;
        try {
          const state = await api.state(this.gameId, this.token);
          if (this.stopped) return;
          if (!this.state || Number(state.version ?? 0) >= Number(this.state.version ?? 0)) {
            this.state = state;
            this.render();
          }
        } catch (err) {
          this.showError(err);
        }
      } while (this.dirty && !this.stopped);
    })().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  showError(err) {
    this.el.message.textContent = err instanceof ApiError ? `${err.status}: ${err.message}` : String(err);
  }

  /** Submit one action (a LegalAction, or free notation typed by the user). */
  async act(action) {
    if (this.submitting) return;
    this.submitting = true;
    this.el.message.textContent = "";
    this.container.classList.add("busy");
    const request = { expectedVersion: this.state.version ?? "0", requestId: requestId() };
    if (action.id !== undefined) request.actionId = action.id;
    else request.notation = action.notation;
    try {
      await api.submit(this.gameId, this.token, request);
      this.selection = {};
    } catch (err) {
      this.showError(err);
    } finally {
      this.submitting = false;
      this.container.classList.remove("busy");
    }
    await this.refresh();
  }

  viewer() {
    return this.state.viewerSeat === undefined ? null : Number(this.state.viewerSeat);
  }

  toMove() {
    const actor = this.state.toMove || {};
    if (actor.kind === "SEAT") return actor.seat ?? 0;
    return null;
  }

  /** What has the keyboard focus, as a key that survives a redraw. */
  focusKey() {
    const active = document.activeElement;
    if (!active || !this.container.contains(active)) return null;
    const typed = active.id === "notation" ? { value: active.value, start: active.selectionStart } : null;
    return {
      selector: active.id
        ? `#${CSS.escape(active.id)}`
        : active.dataset.target
          ? `[data-target="${CSS.escape(active.dataset.target)}"]`
          : active.dataset.notation
            ? `[data-notation="${CSS.escape(active.dataset.notation)}"]`
            : null,
      typed,
      inGame: true,
    };
  }

  /** Give the focus back after a redraw: to the same control, or else (it was on an
   * action that is gone) to the first action, so keyboard play goes on. */
  restoreFocus(key) {
    // Focus lost while others moved (no action to land on): the next time there is one,
    // unless the user has put the focus somewhere else meanwhile.
    const idle = document.activeElement === document.body || document.activeElement === null;
    if (!key && !(this.focusPending && idle)) return;
    const same = key && key.selector && this.container.querySelector(key.selector);
    const target = same || this.container.querySelector("#actions button.action, #actions #notation");
    this.focusPending = !target;
    if (!target) return;
    target.focus();
    if (same && key && key.typed) {
      target.value = key.typed.value;
      target.setSelectionRange(key.typed.start, key.typed.start);
    }
  }

  render() {
    const focus = this.focusKey();
    this.renderNow();
    this.restoreFocus(focus);
  }

  renderNow() {
    const state = this.state;
    const game = GAMES[state.gameType];
    const viewer = this.viewer();
    const toMove = this.toMove();
    const finished = state.status === "FINISHED";
    const yours = !finished && toMove !== null && toMove === viewer;
    document.title = `${yours ? "▶ your move · " : ""}${state.gameType} ${this.gameId.slice(0, 8)} · gamehost`;
    Object.assign(this.container.dataset, {
      version: state.version ?? "0",
      lastEventId: state.lastEventId ?? "0",
      status: state.status || "",
      toMove: toMove ?? "",
      viewer: viewer ?? "spectator",
      gameType: state.gameType,
    });
    mount(
      this.el.title,
      h("span", { class: `badge game-${state.gameType}` }, state.gameType),
      ` Game ${this.gameId.slice(0, 8)} `,
      h("span", { class: "muted small" }, viewer === null ? "spectating" : `playing ${seatLabel(state, viewer)}`),
    );
    this.renderStatus(finished, toMove, viewer);
    const legal = state.legalActions || [];
    const ctx = {
      state,
      viewer,
      toMove,
      legal,
      selection: this.selection,
      act: (action) => this.act(action),
      select: (changes) => {
        Object.assign(this.selection, changes);
        this.render();
      },
      seatLabel: (seat) => seatLabel(state, seat),
      clickable,
    };
    const view = viewOf(state, state.gameType);
    mount(this.el.board);
    mount(this.el.panels);
    if (game && view) {
      game.draw({ board: this.el.board, panels: this.el.panels }, view, ctx);
    } else {
      mount(this.el.board, h("p", { class: "muted" }, `No drawing for ${state.gameType}: use the actions.`));
    }
    this.renderActions(legal, game, ctx, finished);
    this.renderShare();
  }

  renderStatus(finished, toMove, viewer) {
    const state = this.state;
    if (finished) {
      const returns = state.returns || [];
      const best = Math.max(...returns.map(Number));
      const winners = returns.map((r, seat) => [Number(r), seat]).filter(([r]) => r === best && r > 0).map(([, seat]) => seat);
      mount(
        this.el.status,
        h("strong", {}, "Game over. "),
        winners.length ? `Won by ${winners.map((s) => seatLabel(state, s)).join(" and ")}. ` : "",
        h("a", { href: `#/replay/${this.gameId}${viewer === null ? "" : `?seat=${viewer}`}` }, "Replay it step by step"),
      );
    } else if (toMove === null) {
      mount(this.el.status, "Waiting…");
    } else {
      const you = toMove === viewer;
      mount(
        this.el.status,
        h("span", { class: "seat-dot", style: `background:${seatColour(toMove)}` }),
        you ? h("strong", {}, "Your move") : `${seatLabel(state, toMove)} to move`,
        h("span", { class: "muted" }, ` · move ${state.version ?? 0}`),
      );
    }
    const bot = state.botStatus;
    this.el.bot.hidden = finished || !(bot === "BOT_THINKING" || bot === "BOT_WAITING_FOR_CAPACITY");
    this.el.bot.dataset.botStatus = bot || "";
    if (bot === "BOT_THINKING") {
      mount(this.el.bot, h("span", { class: "spinner", "aria-hidden": "true" }), `${seatLabel(state, toMove)} is thinking…`);
    } else if (bot === "BOT_WAITING_FOR_CAPACITY") {
      mount(this.el.bot, h("span", { class: "spinner slow", "aria-hidden": "true" }), `${seatLabel(state, toMove)} waits for a free search worker…`);
    }
  }

  renderActions(legal, game, ctx, finished) {
    const box = this.el.actions;
    if (finished) {
      mount(box, h("h2", {}, "Actions"), h("p", { class: "muted" }, "The game is over."));
      return;
    }
    if (this.viewer() === null) {
      mount(box, h("h2", {}, "Spectating"), h("p", { class: "muted" }, "You see what every seat sees in public. Updates arrive live."), this.seatLinks());
      return;
    }
    if (!legal.length) {
      mount(box, h("h2", {}, "Actions"), h("p", { class: "muted" }, "Not your move: the board updates as the others play."), this.seatLinks());
      return;
    }
    const groups = new Map();
    for (const action of legal) {
      const verb = (game && game.verbOf ? game.verbOf(action.notation) : action.notation.split(" ")[0]) || action.notation;
      if (!groups.has(verb)) groups.set(verb, []);
      groups.get(verb).push(action);
    }
    const hint = game && game.hint ? game.hint(ctx) : "";
    const blocks = [];
    for (const [verb, actions] of groups) {
      const buttons = actions.map((action) =>
        h(
          "button",
          {
            type: "button",
            class: "action",
            "data-action-id": action.id ?? 0,
            "data-notation": action.notation,
            onclick: () => this.act(action),
          },
          game && game.label ? game.label(action.notation, ctx) : action.notation,
        ),
      );
      if (actions.length > BIG_GROUP) {
        blocks.push(h("details", { class: "action-group" }, h("summary", {}, `${verb} (${actions.length}: or click the board)`), h("div", { class: "buttons" }, buttons)));
      } else {
        blocks.push(h("div", { class: "buttons" }, buttons));
      }
    }
    const input = h("input", {
      id: "notation",
      list: "legal-notations",
      autocomplete: "off",
      placeholder: "type a move, e.g. " + legal[0].notation,
      "aria-label": "move notation",
    });
    const datalist = h("datalist", { id: "legal-notations" }, legal.map((a) => h("option", { value: a.notation })));
    const form = h(
      "form",
      {
        class: "notation-form",
        onsubmit: (event) => {
          event.preventDefault();
          const text = input.value.trim();
          if (text) this.act({ notation: text });
        },
      },
      input,
      datalist,
      h("button", { type: "submit" }, "Play"),
    );
    mount(box, h("h2", {}, "Your move"), hint ? h("p", { class: "hint" }, hint) : null, blocks, form, h("p", { class: "muted small" }, "Press / to type a move; Tab and Enter work everywhere, on the board too."));
  }

  seatLinks() {
    const held = Object.keys(this.held).map(Number);
    const others = held.filter((seat) => seat !== this.viewer());
    if (!others.length) return null;
    return h("p", {}, "This browser also holds: ", others.map((seat) => h("a", { href: `#/game/${this.gameId}?seat=${seat}`, class: "button" }, `seat ${seat}`)));
  }

  renderShare() {
    const base = `${window.location.origin}${window.location.pathname}`;
    const free = (this.state.seats || []).filter((seat) => seat.kind === "HUMAN" && !seat.taken);
    const spectate = `${base}#/game/${this.gameId}`;
    mount(
      this.el.share,
      h("h2", {}, "Share"),
      this.state.spectators ? linkRow("Spectate", spectate) : h("p", { class: "muted" }, "Spectators are off for this game."),
      free.map((seat) => {
        const index = seat.index ?? 0;
        const code = invitesFor(this.gameId)[index];
        if (this.state.private && !code) return null; // only the creator holds the codes
        return linkRow(`Invite to seat ${index}`, `${base}#/join/${this.gameId}/${index}${code ? `?code=${encodeURIComponent(code)}` : ""}`);
      }),
      this.token ? linkRow("Your seat (secret: whoever has it plays your seat)", `${base}#/game/${this.gameId}?token=${encodeURIComponent(this.token)}`, true) : null,
    );
  }

  addLog(event) {
    const actor = event.actor || {};
    let who = "";
    if (actor.kind === "SEAT") who = `seat ${actor.seat ?? 0}`;
    else if (actor.kind === "CHANCE") who = "chance";
    let text;
    switch (event.kind) {
      case "GAME_CREATED":
        text = "game created";
        break;
      case "SEAT_JOINED":
        text = `${who} joined`;
        break;
      case "GAME_FINISHED":
        text = "game over";
        break;
      default:
        text = event.hidden ? `${who}: (hidden)` : `${who}: ${event.notation || ""}`;
    }
    const item = h("li", { "data-event-id": event.eventId ?? "0", class: actor.kind === "CHANCE" ? "chance" : "" }, text);
    if (actor.kind === "SEAT") item.style.borderLeftColor = seatColour(actor.seat ?? 0);
    this.el.log.prepend(item);
    while (this.el.log.childElementCount > 300) this.el.log.lastElementChild.remove();
  }
}

function linkRow(label, url, secret = false) {
  const input = h("input", { value: url, readonly: true, class: secret ? "secret" : "", "aria-label": label });
  return h(
    "div",
    { class: "link-row" },
    h("span", { class: "small" }, label),
    h("div", { class: "row" }, input, h("button", { type: "button", onclick: () => navigator.clipboard?.writeText(url).then(() => {}, () => input.select()) }, "Copy")),
  );
}

/** #/join/<game>/<seat>: take a free human seat from an invite link. */
export function joinPage(root, [gameId, seatText], query) {
  const code = query.get("code") || "";
  const seat = Number(seatText);
  mount(root, h("p", { class: "muted" }, "Loading…"));
  // A game closed to spectators does not show itself before you join: join anyway.
  api
    .state(gameId, "")
    .catch(() => null)
    .then((state) => {
      const name = h("input", { id: "join-name", placeholder: "your name", "aria-label": "your name" });
      const message = h("p", { class: "error", role: "alert" });
      const form = h(
        "form",
        {
          class: "card join",
          onsubmit: async (event) => {
            event.preventDefault();
            try {
              const joined = await api.join(gameId, seat, name.value.trim(), code);
              rememberSeat(gameId, joined.seat ?? seat, joined.token);
              window.location.hash = `#/game/${gameId}?seat=${joined.seat ?? seat}`;
            } catch (err) {
              message.textContent = err.message;
            }
          },
        },
        h("h2", {}, `Join ${state ? state.gameType : ""} game ${gameId.slice(0, 8)} as seat ${seat}`),
        state ? h("p", {}, `Seats: ${(state.seats || []).map((s) => seatLabel(state, s.index ?? 0) + (s.kind === "HUMAN" ? (s.taken ? " (taken)" : " (free)") : "")).join(", ")}`) : null,
        h("div", { class: "row" }, name, h("button", { type: "submit", class: "primary", id: "join" }, "Join")),
        message,
        h("p", {}, h("a", { href: `#/game/${gameId}` }, "or just watch")),
      );
      mount(root, form);
      name.focus();
    })
    .catch((err) => mount(root, h("p", { class: "error" }, err.message)));
}
