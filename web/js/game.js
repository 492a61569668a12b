// A game page: the board and panels drawn by the game's module, the players, the
// legal actions as buttons (and as clickable parts of the board), a notation box,
// the event log, and live updates from the event feed (server-sent events).
import { accountKey, signedIn } from "./account.js";
import { api, errorText, requestId } from "./api.js";
import { clickable, h, mount } from "./dom.js";
import { GAMES, viewOf } from "./games/index.js";
import { invitesFor, rememberSeat, seatColour, seatLabel, seatsHeld } from "./seats.js";

const BIG_GROUP = 10; // legal actions of one verb past which they fold behind <details>
// Seconds per move while others' moves play out on the page (a reading pace).
const SPEEDS = { slow: 0.8, normal: 0.6, fast: 0.4, instant: 0 };
const SPEED_KEY = "gamehost.botSpeed";
const RETRY_MS = 2000; // before opening a new feed when the browser gave up on one
// A seat change in the log, after "seat N".
const SEAT_CHANGES = {
  BOT_ADDED: "is now played by a bot",
  AWAY: "is away: a bot plays it",
  TAKEN_BACK: "is back",
  HANDED_OVER: "was handed to a bot",
  TIMED_OUT: "ran out of time: a bot plays it",
  JOINED: "was taken by a person",
  OPTIONS: "changed its options",
};

function savedSpeed() {
  try {
    const saved = localStorage.getItem(SPEED_KEY);
    return saved in SPEEDS ? saved : "normal";
  } catch {
    return "normal";
  }
}

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
    // Events newer than the page's first state play out one by one (``pump``);
    // older ones only fill the log.
    this.queue = [];
    this.playTimer = null;
    this.historyUntil = 0;
    this.lastSeen = 0; // the newest event id received: a new feed resumes after it
    this.lastMove = null; // the notation of the move shown last (highlighted)
    this.shown = []; // the notations of the moves shown in the log so far, oldest first
    this.speed = savedSpeed();
    this.connection = "open";
    this.lastUpdate = null;
    this.clearTyped = false;
    // What the finished game did to the signed-in player's rating: null until asked;
    // then {pending}, {change} (the ordinal's, from GAME_FINISHED) or {error}.
    this.rating = null;
    this.ratingAbort = null;
    this.build();
  }

  build() {
    this.el = {
      title: h("h1", { class: "game-title" }),
      status: h("div", { class: "status-line", id: "status", "aria-live": "polite" }),
      bot: h("div", { class: "bot-status", id: "bot-status", hidden: true }),
      message: h("div", { class: "error", id: "message", role: "alert" }),
      connection: h("div", { class: "connection", id: "connection", role: "status", hidden: true }),
      playback: h("div", { class: "playback", id: "playback" }),
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
      this.el.connection,
      this.el.message,
      h(
        "div",
        { class: "game-layout" },
        h("div", { class: "game-main" }, h("div", { class: "board-column" }, this.el.playback, this.el.board), this.el.panels),
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
      mount(this.root, h("p", { class: "error" }, `Cannot open game ${this.gameId}: ${errorText(err)}`), h("a", { href: "#/" }, "Back to the lobby"));
      return;
    }
    this.historyUntil = Number(this.state.lastEventId ?? 0);
    this.lastUpdate = new Date();
    this.render();
    this.openFeed("0");
  }

  stop() {
    this.stopped = true;
    document.title = "gamehost";
    if (this.source) this.source.close();
    clearTimeout(this.playTimer);
    clearTimeout(this.retryTimer);
    if (this.ratingAbort) this.ratingAbort.abort();
    document.removeEventListener("keydown", this.keyHandler);
  }

  openFeed(after) {
    this.source = api.watchGame(
      this.gameId,
      this.token,
      after,
      (event) => this.onEvent(event),
      (err) => (err.code === "ABORTED" ? this.resync() : this.showError(err)),
      (what, source) => this.onConnection(what, source),
    );
  }

  /** The feed ended ABORTED: a store failover lost events this page had shown, and
   * new ones take their ids. Show the game as it stands now and follow it from there. */
  async resync() {
    try {
      const state = await api.state(this.gameId, this.token);
      if (this.stopped) return;
      this.state = state;
      this.lastSeen = Number(state.lastEventId ?? 0);
      this.render();
      this.openFeed(String(this.lastSeen));
    } catch (err) {
      this.showError(err);
    }
  }

  /** The feed dropped or came back. The browser retries by itself, resuming after
   * the last event id; when it gives up, a new feed resumes from the newest event seen. */
  onConnection(what, source) {
    if (this.stopped || source !== this.source || this.finishedFeed) return;
    if (what === "open") {
      if (this.connection !== "open") {
        this.connection = "open";
        this.showConnection();
        this.refresh(); // anything missed while away
      }
      return;
    }
    this.connection = "reconnecting";
    this.showConnection();
    if (what === "closed") {
      clearTimeout(this.retryTimer);
      this.retryTimer = setTimeout(() => {
        if (!this.stopped && this.source === source) this.openFeed(String(this.lastSeen));
      }, RETRY_MS);
    }
  }

  showConnection() {
    const lost = this.connection !== "open";
    this.el.connection.hidden = !lost;
    this.container.dataset.connection = this.connection;
    if (lost) {
      const when = this.lastUpdate ? this.lastUpdate.toLocaleTimeString() : "the start";
      mount(
        this.el.connection,
        h("span", { class: "spinner", "aria-hidden": "true" }),
        h("strong", {}, "Connection lost: reconnecting…"),
        ` The moves shown may be stale: last update at ${when}.`,
      );
    }
  }

  onEvent(event) {
    const id = Number(event.eventId ?? 0);
    if (id && id <= this.lastSeen) return; // a resumed feed repeats nothing
    this.lastSeen = Math.max(this.lastSeen, id);
    this.lastUpdate = new Date();
    if (this.connection !== "open") {
      this.connection = "open";
      this.showConnection();
    }
    if (id <= this.historyUntil) {
      this.addLog(event);
      // The log has caught up with the state shown: the moves can be offered.
      if (id >= Number(this.state?.lastEventId ?? 0) && !this.playTimer && !this.queue.length) this.render();
    } else {
      this.queue.push(event);
      this.pump();
    }
    const known = Number(this.state?.lastEventId ?? 0);
    if (id > known) this.refresh();
    if (event.kind === "GAME_FINISHED" && this.source) {
      this.finishedFeed = true;
      this.source.close(); // the stream ends with the game; no reconnect loop
    }
  }

  /** Seconds a queued event stays on screen before the next: others' moves and the
   * dice at the chosen pace; your own moves and bookkeeping at once. */
  delayOf(event) {
    const pace = SPEEDS[this.speed] ?? SPEEDS.normal;
    if (!pace || event.kind !== "ACTION") return 0;
    // Your turn clock is running: show the others' moves at once, not on your time.
    const clock = this.state && this.state.clock;
    if (clock && Number(clock.seat ?? 0) === this.viewer()) return 0;
    const actor = event.actor || {};
    if (actor.kind === "CHANCE") return (event.notation || "").startsWith("dice") ? pace : 0;
    return actor.kind === "SEAT" && (actor.seat ?? 0) === this.viewer() ? 0 : pace;
  }

  /** Show the queued events one by one, the newest move highlighted on the board. */
  pump() {
    if (this.playTimer || this.stopped) return;
    let delay = 0;
    while (this.queue.length && !delay) {
      const event = this.queue.shift();
      this.addLog(event);
      if (event.kind === "ACTION" && !event.hidden && this.hasSpot(event.notation)) this.lastMove = event.notation;
      delay = this.delayOf(event);
    }
    if (this.state) this.render();
    if (delay) {
      this.playTimer = setTimeout(() => {
        this.playTimer = null;
        this.pump();
      }, delay * 1000);
    }
  }

  /** Whether a move has a place on the board to highlight (a road, not "end"). */
  hasSpot(notation) {
    const game = this.state ? GAMES[this.state.gameType] : null;
    const view = this.state ? viewOf(this.state, this.state.gameType) : null;
    return Boolean(notation && game && game.spotShape && view && game.spotShape(view, notation, "probe"));
  }

  /** Play out everything queued at once. */
  skip() {
    clearTimeout(this.playTimer);
    this.playTimer = null;
    const speed = this.speed;
    this.speed = "instant";
    this.pump();
    this.speed = speed;
  }

  /** Moves still to show: queued, or in a state fetched before the feed brought its
   * events (the page shows nobody's turn ahead of its log; not while disconnected). */
  playing() {
    const ahead = this.connection === "open" && Number(this.state?.lastEventId ?? 0) > this.lastSeen;
    return this.queue.length > 0 || ahead;
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
    this.el.message.textContent = errorText(err);
  }

  /** One submission at a time: the page is busy meanwhile, a refusal shows in words,
   * and the state is read again afterwards (``accepted`` runs before that read). */
  async submitOnce(work, accepted = () => {}) {
    if (this.submitting) return;
    this.submitting = true;
    this.el.message.textContent = "";
    this.container.classList.add("busy");
    try {
      await work();
      this.selection = {};
      accepted();
    } catch (err) {
      this.showError(err);
    } finally {
      this.submitting = false;
      this.container.classList.remove("busy");
    }
    await this.refresh();
  }

  /** Submit one action (a LegalAction, or free notation typed by the user). */
  async act(action) {
    const request = { expectedVersion: this.state.version ?? "0", requestId: requestId() };
    if (action.id !== undefined) request.actionId = action.id;
    else request.notation = action.notation;
    await this.submitOnce(
      () => api.submit(this.gameId, this.token, request),
      () => {
        this.clearTyped = true; // accepted: the box empties, so Enter cannot send it twice
        const box = this.root.querySelector("#notation");
        if (box) box.value = "";
      },
    );
  }

  /** Several moves in a row by this seat (the discard picker's cards), each at the
   * version the one before it left; stops at the first refusal. */
  async actMany(notations) {
    if (!notations.length) return;
    let version = this.state.version ?? "0";
    await this.submitOnce(async () => {
      for (const notation of notations) {
        const reply = await api.submit(this.gameId, this.token, { expectedVersion: version, requestId: requestId(), notation });
        version = reply.version ?? version;
      }
    });
  }

  async setDeclineOffers(on) {
    try {
      await api.setSeatOptions(this.gameId, this.token, { declineOffers: on });
    } catch (err) {
      this.showError(err);
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
    const typed = active.id === "notation" && !this.clearTyped ? { value: active.value, start: active.selectionStart } : null;
    this.clearTyped = false;
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
    // The first action you can see (not one folded away), else the notation box.
    const shown = [...this.container.querySelectorAll("#actions button.action, #actions #notation")].find((el) => el.getClientRects().length);
    const target = same || shown;
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
    // While others' moves play out, the board shows them one by one and waits with
    // yours until they are done.
    const playing = this.playing();
    const legal = playing ? [] : state.legalActions || [];
    this.container.dataset.playing = playing ? "true" : "false";
    const ctx = {
      state,
      viewer,
      toMove,
      legal,
      pending: this.queue.filter((e) => e.kind === "ACTION" && !e.hidden).map((e) => e.notation || ""),
      shown: this.shown,
      lastMove: this.lastMove,
      selection: this.selection,
      act: (action) => this.act(action),
      actMany: (notations) => this.actMany(notations),
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
    this.renderPlayback(playing);
    this.renderActions(legal, game, ctx, finished, playing);
    this.renderShare();
  }

  renderPlayback(playing) {
    const select = h(
      "select",
      {
        id: "bot-speed",
        "aria-label": "speed of the others' moves",
        onchange: (event) => {
          this.speed = event.target.value;
          try {
            localStorage.setItem(SPEED_KEY, this.speed);
          } catch {
            /* private mode: the choice lasts for this page */
          }
          if (this.speed === "instant") this.skip();
        },
      },
      Object.keys(SPEEDS).map((name) => h("option", { value: name, selected: name === this.speed }, name === "instant" ? "instant" : `${name} (${SPEEDS[name]} s)`)),
    );
    mount(
      this.el.playback,
      h("label", { class: "small" }, "Moves of others: ", select),
      playing ? h("span", { class: "small playing" }, `playing out ${this.queue.length} more…`) : null,
      h("button", { type: "button", id: "skip", class: "small-button", disabled: !playing, onclick: () => this.skip() }, "Skip ▸▸"),
    );
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
        this.ratingNote(viewer),
      );
    } else if (toMove === null) {
      mount(this.el.status, "Waiting…");
    } else {
      const you = toMove === viewer;
      mount(
        this.el.status,
        h("span", { class: "seat-dot", style: `background:${seatColour(toMove)}` }),
        this.playing() ? "The others' moves are playing out…" : you ? h("strong", {}, "Your move") : `${seatLabel(state, toMove)} to move`,
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

  /** " · Your rating +1.23" once a rated game of the signed-in player's seat is
   * over: its GAME_FINISHED event (GET /v1/me/events) says what the game did to the
   * ordinal (mu - 3 sigma). Nothing for a spectator, a guest or a game not rated. */
  ratingNote(viewer) {
    const account = signedIn();
    const seat = viewer === null ? null : (this.state.seats || [])[viewer];
    if (!account || !seat || (seat.account || "").toLowerCase() !== account.name.toLowerCase()) return null;
    if (!this.rating) this.followRating(account.key);
    const { change, error } = this.rating;
    if (error) return h("span", { class: "muted small", id: "rating-change" }, ` · Your rating: ${error}`);
    if (!change) return null; // still to come, or a game not rated
    const shown = `${change > 0 ? "+" : ""}${change.toFixed(2)}`;
    return h("span", { id: "rating-change", "data-change": String(change) }, " · Your rating ", h("strong", {}, shown), " ", h("a", { href: `#/player/${encodeURIComponent(account.name)}` }, "(your page)"));
  }

  followRating(key) {
    this.rating = { pending: true };
    this.ratingAbort = new AbortController();
    const gameId = this.gameId;
    let found = null;
    api
      .playerEvents(key, (event) => event.kind === "PLAYER_GAME_FINISHED" && event.gameId === gameId && (found = event), this.ratingAbort.signal)
      .then(
        () => {
          if (this.stopped || !found) return;
          this.rating = { change: Number(found.ratingChange || 0) };
          this.render();
        },
        (err) => {
          if (this.stopped || err.name === "AbortError") return;
          this.rating = { error: errorText(err) };
          this.render();
        },
      );
  }

  renderActions(legal, game, ctx, finished, playing) {
    const box = this.el.actions;
    if (!finished && playing && this.viewer() !== null) {
      mount(box, h("h2", {}, "Others are moving"), h("p", { class: "muted" }, "Their moves play out on the board; Skip shows them all at once."), this.declineToggle());
      return;
    }
    if (finished) {
      mount(box, h("h2", {}, "Actions"), h("p", { class: "muted" }, "The game is over."));
      return;
    }
    if (this.viewer() === null) {
      mount(box, h("h2", {}, "Spectating"), h("p", { class: "muted" }, "You see what every seat sees in public. Updates arrive live."), this.seatLinks());
      return;
    }
    if (!legal.length) {
      mount(box, h("h2", {}, "Actions"), h("p", { class: "muted" }, "Not your move: the board updates as the others play."), this.declineToggle(), this.seatLinks());
      return;
    }
    const groups = new Map();
    const covered = []; // moves a widget below stands in for (each trade, each discard)
    for (const action of legal) {
      const verb = (game && game.verbOf ? game.verbOf(action.notation) : action.notation.split(" ")[0]) || action.notation;
      if (game && game.coveredVerb && game.coveredVerb(verb, ctx)) {
        covered.push(action);
        continue;
      }
      if (!groups.has(verb)) groups.set(verb, []);
      groups.get(verb).push(action);
    }
    const hint = game && game.hint ? game.hint(ctx) : "";
    const blocks = [];
    const button = (action) =>
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
      );
    for (const [verb, actions] of groups) {
      const buttons = actions.map(button);
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
    const widgets = game && game.widgets ? game.widgets(ctx) : [];
    // Still there as buttons (the page's hooks), folded away after the widgets.
    const folded = covered.length
      ? h("details", { class: "action-group covered" }, h("summary", { class: "small" }, `each of these moves as a button (${covered.length})`), h("div", { class: "buttons" }, covered.map(button)))
      : null;
    mount(box, h("h2", {}, "Your move"), hint ? h("p", { class: "hint" }, hint) : null, blocks, widgets, folded, form, this.declineToggle(), h("p", { class: "muted small keys-hint" }, "Press / to type a move; Tab and Enter work everywhere, on the board too."));
  }

  /** Catan seats: turn incoming trade offers off (SetSeatOptions). */
  declineToggle() {
    const viewer = this.viewer();
    if (viewer === null || this.state.gameType !== "catan") return null;
    const seat = (this.state.seats || []).find((s) => (s.index ?? 0) === viewer) || {};
    return h(
      "label",
      { class: "decline-offers small" },
      h("input", { type: "checkbox", id: "decline-offers", checked: !!seat.declineOffers, onchange: (event) => this.setDeclineOffers(event.target.checked) }),
      " Decline all trade offers",
    );
  }

  seatLinks() {
    const held = Object.keys(this.held).map(Number);
    const others = held.filter((seat) => seat !== this.viewer());
    if (!others.length) return null;
    const intro = this.viewer() === null ? "You hold a seat in this game: " : "This browser also holds: ";
    return h("p", { class: "row wrap" }, intro, others.map((seat) => h("a", { href: `#/game/${this.gameId}?seat=${seat}`, class: "button resume", "data-seat": seat }, `Resume as seat ${seat}`)));
  }

  renderShare() {
    const base = `${window.location.origin}${window.location.pathname}`;
    const free = (this.state.seats || []).filter((seat) => seat.kind === "HUMAN" && !seat.taken);
    const spectate = `${base}#/game/${this.gameId}`;
    mount(
      this.el.share,
      h("h2", {}, "Share"),
      // Read without a seat's token only when public with spectators on (docs/api.md).
      this.state.spectators && !this.state.private ? linkRow("Spectate", spectate) : h("p", { class: "muted" }, "Spectators are off for this game."),
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
    const game = this.state ? GAMES[this.state.gameType] : null;
    const view = this.state ? viewOf(this.state, this.state.gameType) : null;
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
      case "SEAT_CHANGED": {
        const change = event.seatChange || {};
        text = `seat ${change.seat ?? 0} ${SEAT_CHANGES[change.reason] || "changed hands"}`;
        break;
      }
      default:
        if (game && game.describe && view) text = game.describe(event, view, this.viewer());
        else text = event.hidden ? `${who}: (hidden)` : `${who}: ${event.notation || ""}`;
    }
    const spot = event.kind === "ACTION" && !event.hidden ? event.notation || "" : "";
    if (spot) {
      this.shown.push(spot);
      if (this.shown.length > 500) this.shown.splice(0, 100);
    }
    const item = h("li", { "data-event-id": event.eventId ?? "0", "data-move": spot || null, class: actor.kind === "CHANCE" ? "chance" : "", title: spot || null }, text);
    if (spot && game && game.spotShape) {
      // Hover (or focus) a line to see its spot on the board.
      item.tabIndex = 0;
      item.classList.add("has-spot");
      const show = () => this.showSpot(spot);
      const hide = () => this.showSpot(null);
      item.addEventListener("mouseenter", show);
      item.addEventListener("focus", show);
      item.addEventListener("mouseleave", hide);
      item.addEventListener("blur", hide);
    }
    if (actor.kind === "SEAT") item.style.borderLeftColor = seatColour(actor.seat ?? 0);
    this.el.log.prepend(item);
    while (this.el.log.childElementCount > 300) this.el.log.lastElementChild.remove();
  }

  showSpot(notation) {
    const svg = this.el.board.querySelector("svg");
    if (!svg) return;
    svg.querySelectorAll(".spot-hover").forEach((el) => el.remove());
    const game = GAMES[this.state.gameType];
    const view = viewOf(this.state, this.state.gameType);
    if (!notation || !game || !game.spotShape || !view) return;
    const shape = game.spotShape(view, notation, "spot-hover");
    if (shape) svg.append(shape);
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
      const account = signedIn(); // signed in, the seat is the account's
      const name = h("input", { id: "join-name", placeholder: "your name", "aria-label": "your name", value: account ? account.name : null, readonly: !!account });
      const message = h("p", { class: "error", role: "alert" });
      const form = h(
        "form",
        {
          class: "card join",
          onsubmit: async (event) => {
            event.preventDefault();
            try {
              const joined = await api.join(gameId, seat, name.value.trim(), code, accountKey());
              rememberSeat(gameId, joined.seat ?? seat, joined.token);
              window.location.hash = `#/game/${gameId}?seat=${joined.seat ?? seat}`;
            } catch (err) {
              message.textContent = errorText(err);
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
    .catch((err) => mount(root, h("p", { class: "error" }, errorText(err))));
}
