import datetime

from gamehost.v1 import catan_pb2 as _catan_pb2
from gamehost.v1 import cite_pb2 as _cite_pb2
from gamehost.v1 import endeavor_pb2 as _endeavor_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SeatKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEAT_KIND_UNSPECIFIED: _ClassVar[SeatKind]
    HUMAN: _ClassVar[SeatKind]
    BOT: _ClassVar[SeatKind]

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    GAME_STATUS_UNSPECIFIED: _ClassVar[GameStatus]
    IN_PROGRESS: _ClassVar[GameStatus]
    FINISHED: _ClassVar[GameStatus]

class FinishReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_REASON_UNSPECIFIED: _ClassVar[FinishReason]
    PLAYED_OUT: _ClassVar[FinishReason]
    ABANDONED: _ClassVar[FinishReason]

class BotStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_STATUS_UNSPECIFIED: _ClassVar[BotStatus]
    BOT_THINKING: _ClassVar[BotStatus]
    BOT_WAITING_FOR_CAPACITY: _ClassVar[BotStatus]

class EventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVENT_KIND_UNSPECIFIED: _ClassVar[EventKind]
    GAME_CREATED: _ClassVar[EventKind]
    SEAT_JOINED: _ClassVar[EventKind]
    ACTION: _ClassVar[EventKind]
    GAME_FINISHED: _ClassVar[EventKind]
    SEAT_CHANGED: _ClassVar[EventKind]

class TournamentStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOURNAMENT_STATUS_UNSPECIFIED: _ClassVar[TournamentStatus]
    TOURNAMENT_RUNNING: _ClassVar[TournamentStatus]
    TOURNAMENT_FINISHED: _ClassVar[TournamentStatus]
    TOURNAMENT_CANCELLED: _ClassVar[TournamentStatus]

class BotAccountStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    BOT_ACCOUNT_STATUS_UNSPECIFIED: _ClassVar[BotAccountStatus]
    BOT_VALIDATING: _ClassVar[BotAccountStatus]
    BOT_ACTIVE: _ClassVar[BotAccountStatus]
    BOT_PAUSED: _ClassVar[BotAccountStatus]
    BOT_REVOKED: _ClassVar[BotAccountStatus]

class AccountKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACCOUNT_KIND_UNSPECIFIED: _ClassVar[AccountKind]
    ACCOUNT_HUMAN: _ClassVar[AccountKind]
    ACCOUNT_BOT: _ClassVar[AccountKind]

class PlayerEventKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PLAYER_EVENT_KIND_UNSPECIFIED: _ClassVar[PlayerEventKind]
    PLAYER_GAME_STARTED: _ClassVar[PlayerEventKind]
    PLAYER_YOUR_TURN: _ClassVar[PlayerEventKind]
    PLAYER_GAME_FINISHED: _ClassVar[PlayerEventKind]
    PLAYER_CHALLENGE_RECEIVED: _ClassVar[PlayerEventKind]
    PLAYER_CHALLENGE_ANSWERED: _ClassVar[PlayerEventKind]

class ChallengeState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHALLENGE_STATE_UNSPECIFIED: _ClassVar[ChallengeState]
    CHALLENGE_PENDING: _ClassVar[ChallengeState]
    CHALLENGE_ACCEPTED: _ClassVar[ChallengeState]
    CHALLENGE_DECLINED: _ClassVar[ChallengeState]
    CHALLENGE_EXPIRED: _ClassVar[ChallengeState]
SEAT_KIND_UNSPECIFIED: SeatKind
HUMAN: SeatKind
BOT: SeatKind
GAME_STATUS_UNSPECIFIED: GameStatus
IN_PROGRESS: GameStatus
FINISHED: GameStatus
FINISH_REASON_UNSPECIFIED: FinishReason
PLAYED_OUT: FinishReason
ABANDONED: FinishReason
BOT_STATUS_UNSPECIFIED: BotStatus
BOT_THINKING: BotStatus
BOT_WAITING_FOR_CAPACITY: BotStatus
EVENT_KIND_UNSPECIFIED: EventKind
GAME_CREATED: EventKind
SEAT_JOINED: EventKind
ACTION: EventKind
GAME_FINISHED: EventKind
SEAT_CHANGED: EventKind
TOURNAMENT_STATUS_UNSPECIFIED: TournamentStatus
TOURNAMENT_RUNNING: TournamentStatus
TOURNAMENT_FINISHED: TournamentStatus
TOURNAMENT_CANCELLED: TournamentStatus
BOT_ACCOUNT_STATUS_UNSPECIFIED: BotAccountStatus
BOT_VALIDATING: BotAccountStatus
BOT_ACTIVE: BotAccountStatus
BOT_PAUSED: BotAccountStatus
BOT_REVOKED: BotAccountStatus
ACCOUNT_KIND_UNSPECIFIED: AccountKind
ACCOUNT_HUMAN: AccountKind
ACCOUNT_BOT: AccountKind
PLAYER_EVENT_KIND_UNSPECIFIED: PlayerEventKind
PLAYER_GAME_STARTED: PlayerEventKind
PLAYER_YOUR_TURN: PlayerEventKind
PLAYER_GAME_FINISHED: PlayerEventKind
PLAYER_CHALLENGE_RECEIVED: PlayerEventKind
PLAYER_CHALLENGE_ANSWERED: PlayerEventKind
CHALLENGE_STATE_UNSPECIFIED: ChallengeState
CHALLENGE_PENDING: ChallengeState
CHALLENGE_ACCEPTED: ChallengeState
CHALLENGE_DECLINED: ChallengeState
CHALLENGE_EXPIRED: ChallengeState

class Actor(_message.Message):
    __slots__ = ("kind", "seat")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[Actor.Kind]
        SEAT: _ClassVar[Actor.Kind]
        CHANCE: _ClassVar[Actor.Kind]
        NOBODY: _ClassVar[Actor.Kind]
    KIND_UNSPECIFIED: Actor.Kind
    SEAT: Actor.Kind
    CHANCE: Actor.Kind
    NOBODY: Actor.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    kind: Actor.Kind
    seat: int
    def __init__(self, kind: _Optional[_Union[Actor.Kind, str]] = ..., seat: _Optional[int] = ...) -> None: ...

class GameView(_message.Message):
    __slots__ = ("cite", "catan", "endeavor")
    CITE_FIELD_NUMBER: _ClassVar[int]
    CATAN_FIELD_NUMBER: _ClassVar[int]
    ENDEAVOR_FIELD_NUMBER: _ClassVar[int]
    cite: _cite_pb2.CiteView
    catan: _catan_pb2.CatanView
    endeavor: _endeavor_pb2.EndeavorView
    def __init__(self, cite: _Optional[_Union[_cite_pb2.CiteView, _Mapping]] = ..., catan: _Optional[_Union[_catan_pb2.CatanView, _Mapping]] = ..., endeavor: _Optional[_Union[_endeavor_pb2.EndeavorView, _Mapping]] = ...) -> None: ...

class GameType(_message.Message):
    __slots__ = ("name", "title", "min_players", "max_players", "summary", "default_options")
    class DefaultOptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    name: str
    title: str
    min_players: int
    max_players: int
    summary: str
    default_options: _containers.ScalarMap[str, str]
    def __init__(self, name: _Optional[str] = ..., title: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., summary: _Optional[str] = ..., default_options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ListGameTypesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListGameTypesResponse(_message.Message):
    __slots__ = ("game_types", "bot_levels", "engine_build")
    GAME_TYPES_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVELS_FIELD_NUMBER: _ClassVar[int]
    ENGINE_BUILD_FIELD_NUMBER: _ClassVar[int]
    game_types: _containers.RepeatedCompositeFieldContainer[GameType]
    bot_levels: _containers.RepeatedScalarFieldContainer[str]
    engine_build: str
    def __init__(self, game_types: _Optional[_Iterable[_Union[GameType, _Mapping]]] = ..., bot_levels: _Optional[_Iterable[str]] = ..., engine_build: _Optional[str] = ...) -> None: ...

class SeatSpec(_message.Message):
    __slots__ = ("kind", "bot_level", "name", "account", "account_kind", "guest")
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_KIND_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    kind: SeatKind
    bot_level: str
    name: str
    account: str
    account_kind: AccountKind
    guest: bool
    def __init__(self, kind: _Optional[_Union[SeatKind, str]] = ..., bot_level: _Optional[str] = ..., name: _Optional[str] = ..., account: _Optional[str] = ..., account_kind: _Optional[_Union[AccountKind, str]] = ..., guest: _Optional[bool] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ("game_type", "seats", "options", "seed", "private", "spectators", "bots_by_anyone", "rejoin_handed_seats", "timer", "rated")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    BOTS_BY_ANYONE_FIELD_NUMBER: _ClassVar[int]
    REJOIN_HANDED_SEATS_FIELD_NUMBER: _ClassVar[int]
    TIMER_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    seats: _containers.RepeatedCompositeFieldContainer[SeatSpec]
    options: _containers.ScalarMap[str, str]
    seed: int
    private: bool
    spectators: bool
    bots_by_anyone: bool
    rejoin_handed_seats: bool
    timer: TurnTimer
    rated: bool
    def __init__(self, game_type: _Optional[str] = ..., seats: _Optional[_Iterable[_Union[SeatSpec, _Mapping]]] = ..., options: _Optional[_Mapping[str, str]] = ..., seed: _Optional[int] = ..., private: _Optional[bool] = ..., spectators: _Optional[bool] = ..., bots_by_anyone: _Optional[bool] = ..., rejoin_handed_seats: _Optional[bool] = ..., timer: _Optional[_Union[TurnTimer, _Mapping]] = ..., rated: _Optional[bool] = ...) -> None: ...

class TurnTimer(_message.Message):
    __slots__ = ("move_seconds", "bank_seconds", "fallback_level", "max_timeouts")
    MOVE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_LEVEL_FIELD_NUMBER: _ClassVar[int]
    MAX_TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    move_seconds: float
    bank_seconds: float
    fallback_level: str
    max_timeouts: int
    def __init__(self, move_seconds: _Optional[float] = ..., bank_seconds: _Optional[float] = ..., fallback_level: _Optional[str] = ..., max_timeouts: _Optional[int] = ...) -> None: ...

class TurnClock(_message.Message):
    __slots__ = ("seat", "deadline", "bank_seconds")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    deadline: float
    bank_seconds: float
    def __init__(self, seat: _Optional[int] = ..., deadline: _Optional[float] = ..., bank_seconds: _Optional[float] = ...) -> None: ...

class AccessInviteCode(_message.Message):
    __slots__ = ("seat", "code")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    code: str
    def __init__(self, seat: _Optional[int] = ..., code: _Optional[str] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ("game_id", "state", "invite_codes", "creator_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODES_FIELD_NUMBER: _ClassVar[int]
    CREATOR_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    state: GameState
    invite_codes: _containers.RepeatedCompositeFieldContainer[AccessInviteCode]
    creator_token: str
    def __init__(self, game_id: _Optional[str] = ..., state: _Optional[_Union[GameState, _Mapping]] = ..., invite_codes: _Optional[_Iterable[_Union[AccessInviteCode, _Mapping]]] = ..., creator_token: _Optional[str] = ...) -> None: ...

class JoinGameRequest(_message.Message):
    __slots__ = ("game_id", "seat", "name", "invite_code", "key")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    INVITE_CODE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    name: str
    invite_code: str
    key: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., name: _Optional[str] = ..., invite_code: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class GetMySeatRequest(_message.Message):
    __slots__ = ("game_id", "key")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    key: str
    def __init__(self, game_id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class JoinGameResponse(_message.Message):
    __slots__ = ("game_id", "seat", "token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    token: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ("limit", "game_type", "status", "player", "tournament", "bot_level", "finished_after", "finished_before", "page_size", "page_token", "account", "mine", "key")
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AFTER_FIELD_NUMBER: _ClassVar[int]
    FINISHED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    MINE_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    limit: int
    game_type: str
    status: GameStatus
    player: str
    tournament: str
    bot_level: str
    finished_after: int
    finished_before: int
    page_size: int
    page_token: str
    account: str
    mine: bool
    key: str
    def __init__(self, limit: _Optional[int] = ..., game_type: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., player: _Optional[str] = ..., tournament: _Optional[str] = ..., bot_level: _Optional[str] = ..., finished_after: _Optional[int] = ..., finished_before: _Optional[int] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., account: _Optional[str] = ..., mine: _Optional[bool] = ..., key: _Optional[str] = ...) -> None: ...

class GameSummary(_message.Message):
    __slots__ = ("game_id", "game_type", "players", "status", "version", "free_seats", "seats", "finished_at", "tournament", "finished_time", "your_turn", "returns")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    FREE_SEATS_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_TIME_FIELD_NUMBER: _ClassVar[int]
    YOUR_TURN_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game_type: str
    players: int
    status: GameStatus
    version: int
    free_seats: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatSpec]
    finished_at: float
    tournament: str
    finished_time: _timestamp_pb2.Timestamp
    your_turn: bool
    returns: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, game_id: _Optional[str] = ..., game_type: _Optional[str] = ..., players: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., version: _Optional[int] = ..., free_seats: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatSpec, _Mapping]]] = ..., finished_at: _Optional[float] = ..., tournament: _Optional[str] = ..., finished_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., your_turn: _Optional[bool] = ..., returns: _Optional[_Iterable[float]] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ("games", "next_page_token")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[GameSummary]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[GameSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Seat(_message.Message):
    __slots__ = ("index", "kind", "bot_level", "name", "taken", "control", "timeouts", "bank_seconds", "decline_offers", "account", "account_kind", "guest")
    class Control(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        CONTROL_UNSPECIFIED: _ClassVar[Seat.Control]
        AWAY: _ClassVar[Seat.Control]
        HANDED_OVER: _ClassVar[Seat.Control]
        ADDED: _ClassVar[Seat.Control]
    CONTROL_UNSPECIFIED: Seat.Control
    AWAY: Seat.Control
    HANDED_OVER: Seat.Control
    ADDED: Seat.Control
    INDEX_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    TAKEN_FIELD_NUMBER: _ClassVar[int]
    CONTROL_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    BANK_SECONDS_FIELD_NUMBER: _ClassVar[int]
    DECLINE_OFFERS_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    ACCOUNT_KIND_FIELD_NUMBER: _ClassVar[int]
    GUEST_FIELD_NUMBER: _ClassVar[int]
    index: int
    kind: SeatKind
    bot_level: str
    name: str
    taken: bool
    control: Seat.Control
    timeouts: int
    bank_seconds: float
    decline_offers: bool
    account: str
    account_kind: AccountKind
    guest: bool
    def __init__(self, index: _Optional[int] = ..., kind: _Optional[_Union[SeatKind, str]] = ..., bot_level: _Optional[str] = ..., name: _Optional[str] = ..., taken: _Optional[bool] = ..., control: _Optional[_Union[Seat.Control, str]] = ..., timeouts: _Optional[int] = ..., bank_seconds: _Optional[float] = ..., decline_offers: _Optional[bool] = ..., account: _Optional[str] = ..., account_kind: _Optional[_Union[AccountKind, str]] = ..., guest: _Optional[bool] = ...) -> None: ...

class GetStateRequest(_message.Message):
    __slots__ = ("game_id", "token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "notation")
    ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    id: int
    notation: str
    def __init__(self, id: _Optional[int] = ..., notation: _Optional[str] = ...) -> None: ...

class GameState(_message.Message):
    __slots__ = ("game_id", "game_type", "version", "status", "viewer_seat", "to_move", "seats", "returns", "options", "cite", "catan", "endeavor", "legal_actions", "last_event_id", "private", "spectators", "bot_status", "bots_by_anyone", "rejoin_handed_seats", "timer", "clock", "finish_reason")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEWER_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CITE_FIELD_NUMBER: _ClassVar[int]
    CATAN_FIELD_NUMBER: _ClassVar[int]
    ENDEAVOR_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_FIELD_NUMBER: _ClassVar[int]
    SPECTATORS_FIELD_NUMBER: _ClassVar[int]
    BOT_STATUS_FIELD_NUMBER: _ClassVar[int]
    BOTS_BY_ANYONE_FIELD_NUMBER: _ClassVar[int]
    REJOIN_HANDED_SEATS_FIELD_NUMBER: _ClassVar[int]
    TIMER_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game_type: str
    version: int
    status: GameStatus
    viewer_seat: int
    to_move: Actor
    seats: _containers.RepeatedCompositeFieldContainer[Seat]
    returns: _containers.RepeatedScalarFieldContainer[float]
    options: _containers.ScalarMap[str, str]
    cite: _cite_pb2.CiteView
    catan: _catan_pb2.CatanView
    endeavor: _endeavor_pb2.EndeavorView
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    last_event_id: int
    private: bool
    spectators: bool
    bot_status: BotStatus
    bots_by_anyone: bool
    rejoin_handed_seats: bool
    timer: TurnTimer
    clock: TurnClock
    finish_reason: FinishReason
    def __init__(self, game_id: _Optional[str] = ..., game_type: _Optional[str] = ..., version: _Optional[int] = ..., status: _Optional[_Union[GameStatus, str]] = ..., viewer_seat: _Optional[int] = ..., to_move: _Optional[_Union[Actor, _Mapping]] = ..., seats: _Optional[_Iterable[_Union[Seat, _Mapping]]] = ..., returns: _Optional[_Iterable[float]] = ..., options: _Optional[_Mapping[str, str]] = ..., cite: _Optional[_Union[_cite_pb2.CiteView, _Mapping]] = ..., catan: _Optional[_Union[_catan_pb2.CatanView, _Mapping]] = ..., endeavor: _Optional[_Union[_endeavor_pb2.EndeavorView, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., last_event_id: _Optional[int] = ..., private: _Optional[bool] = ..., spectators: _Optional[bool] = ..., bot_status: _Optional[_Union[BotStatus, str]] = ..., bots_by_anyone: _Optional[bool] = ..., rejoin_handed_seats: _Optional[bool] = ..., timer: _Optional[_Union[TurnTimer, _Mapping]] = ..., clock: _Optional[_Union[TurnClock, _Mapping]] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ...) -> None: ...

class SubmitActionRequest(_message.Message):
    __slots__ = ("game_id", "token", "expected_version", "action_id", "notation", "request_id", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    expected_version: int
    action_id: int
    notation: str
    request_id: str
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., expected_version: _Optional[int] = ..., action_id: _Optional[int] = ..., notation: _Optional[str] = ..., request_id: _Optional[str] = ..., seat: _Optional[int] = ...) -> None: ...

class SubmitActionResponse(_message.Message):
    __slots__ = ("version", "duplicate", "notation", "action_id")
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    version: int
    duplicate: bool
    notation: str
    action_id: int
    def __init__(self, version: _Optional[int] = ..., duplicate: _Optional[bool] = ..., notation: _Optional[str] = ..., action_id: _Optional[int] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ("game_id", "token", "after_event_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    after_event_id: int
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., after_event_id: _Optional[int] = ...) -> None: ...

class SeatChange(_message.Message):
    __slots__ = ("seat", "now", "reason", "version", "event_id")
    class Reason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        REASON_UNSPECIFIED: _ClassVar[SeatChange.Reason]
        BOT_ADDED: _ClassVar[SeatChange.Reason]
        AWAY: _ClassVar[SeatChange.Reason]
        TAKEN_BACK: _ClassVar[SeatChange.Reason]
        HANDED_OVER: _ClassVar[SeatChange.Reason]
        TIMED_OUT: _ClassVar[SeatChange.Reason]
        JOINED: _ClassVar[SeatChange.Reason]
        OPTIONS: _ClassVar[SeatChange.Reason]
    REASON_UNSPECIFIED: SeatChange.Reason
    BOT_ADDED: SeatChange.Reason
    AWAY: SeatChange.Reason
    TAKEN_BACK: SeatChange.Reason
    HANDED_OVER: SeatChange.Reason
    TIMED_OUT: SeatChange.Reason
    JOINED: SeatChange.Reason
    OPTIONS: SeatChange.Reason
    SEAT_FIELD_NUMBER: _ClassVar[int]
    NOW_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    seat: int
    now: Seat
    reason: SeatChange.Reason
    version: int
    event_id: int
    def __init__(self, seat: _Optional[int] = ..., now: _Optional[_Union[Seat, _Mapping]] = ..., reason: _Optional[_Union[SeatChange.Reason, str]] = ..., version: _Optional[int] = ..., event_id: _Optional[int] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("event_id", "kind", "version", "actor", "to_move", "audience", "hidden", "action_id", "notation", "status", "returns", "legal_actions", "seat_change", "timeout", "clock", "finish_reason")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    AUDIENCE_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    SEAT_CHANGE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    event_id: int
    kind: EventKind
    version: int
    actor: Actor
    to_move: Actor
    audience: _containers.RepeatedScalarFieldContainer[int]
    hidden: bool
    action_id: int
    notation: str
    status: GameStatus
    returns: _containers.RepeatedScalarFieldContainer[float]
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    seat_change: SeatChange
    timeout: bool
    clock: TurnClock
    finish_reason: FinishReason
    def __init__(self, event_id: _Optional[int] = ..., kind: _Optional[_Union[EventKind, str]] = ..., version: _Optional[int] = ..., actor: _Optional[_Union[Actor, _Mapping]] = ..., to_move: _Optional[_Union[Actor, _Mapping]] = ..., audience: _Optional[_Iterable[int]] = ..., hidden: _Optional[bool] = ..., action_id: _Optional[int] = ..., notation: _Optional[str] = ..., status: _Optional[_Union[GameStatus, str]] = ..., returns: _Optional[_Iterable[float]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., seat_change: _Optional[_Union[SeatChange, _Mapping]] = ..., timeout: _Optional[bool] = ..., clock: _Optional[_Union[TurnClock, _Mapping]] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ...) -> None: ...

class GetRecordRequest(_message.Message):
    __slots__ = ("game_id", "token", "include_views", "page_size", "page_token")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_VIEWS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    include_views: bool
    page_size: int
    page_token: str
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., include_views: _Optional[bool] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class RecordEntry(_message.Message):
    __slots__ = ("ply", "actor", "audience", "hidden", "action_id", "notation", "to_move", "view", "timeout")
    PLY_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    AUDIENCE_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_FIELD_NUMBER: _ClassVar[int]
    ply: int
    actor: Actor
    audience: _containers.RepeatedScalarFieldContainer[int]
    hidden: bool
    action_id: int
    notation: str
    to_move: Actor
    view: GameView
    timeout: bool
    def __init__(self, ply: _Optional[int] = ..., actor: _Optional[_Union[Actor, _Mapping]] = ..., audience: _Optional[_Iterable[int]] = ..., hidden: _Optional[bool] = ..., action_id: _Optional[int] = ..., notation: _Optional[str] = ..., to_move: _Optional[_Union[Actor, _Mapping]] = ..., view: _Optional[_Union[GameView, _Mapping]] = ..., timeout: _Optional[bool] = ...) -> None: ...

class GameRecord(_message.Message):
    __slots__ = ("game_id", "game_type", "players", "options", "initial_state", "initial_view", "initial_to_move", "entries", "status", "returns", "version", "seat_changes", "finish_reason", "next_page_token")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    INITIAL_STATE_FIELD_NUMBER: _ClassVar[int]
    INITIAL_VIEW_FIELD_NUMBER: _ClassVar[int]
    INITIAL_TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_CHANGES_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    game_type: str
    players: int
    options: _containers.ScalarMap[str, str]
    initial_state: bytes
    initial_view: GameView
    initial_to_move: Actor
    entries: _containers.RepeatedCompositeFieldContainer[RecordEntry]
    status: GameStatus
    returns: _containers.RepeatedScalarFieldContainer[float]
    version: int
    seat_changes: _containers.RepeatedCompositeFieldContainer[SeatChange]
    finish_reason: FinishReason
    next_page_token: str
    def __init__(self, game_id: _Optional[str] = ..., game_type: _Optional[str] = ..., players: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., initial_state: _Optional[bytes] = ..., initial_view: _Optional[_Union[GameView, _Mapping]] = ..., initial_to_move: _Optional[_Union[Actor, _Mapping]] = ..., entries: _Optional[_Iterable[_Union[RecordEntry, _Mapping]]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., returns: _Optional[_Iterable[float]] = ..., version: _Optional[int] = ..., seat_changes: _Optional[_Iterable[_Union[SeatChange, _Mapping]]] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class HintRequest(_message.Message):
    __slots__ = ("game_id", "token", "bot_level", "version", "seat")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    bot_level: str
    version: int
    seat: int
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., bot_level: _Optional[str] = ..., version: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class HintAction(_message.Message):
    __slots__ = ("action_id", "notation", "visits", "win_share")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    WIN_SHARE_FIELD_NUMBER: _ClassVar[int]
    action_id: int
    notation: str
    visits: int
    win_share: float
    def __init__(self, action_id: _Optional[int] = ..., notation: _Optional[str] = ..., visits: _Optional[int] = ..., win_share: _Optional[float] = ...) -> None: ...

class HintResponse(_message.Message):
    __slots__ = ("game_id", "version", "seat", "bot_level", "action_id", "notation", "top_actions", "iterations", "trees")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    TOP_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    TREES_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    version: int
    seat: int
    bot_level: str
    action_id: int
    notation: str
    top_actions: _containers.RepeatedCompositeFieldContainer[HintAction]
    iterations: int
    trees: int
    def __init__(self, game_id: _Optional[str] = ..., version: _Optional[int] = ..., seat: _Optional[int] = ..., bot_level: _Optional[str] = ..., action_id: _Optional[int] = ..., notation: _Optional[str] = ..., top_actions: _Optional[_Iterable[_Union[HintAction, _Mapping]]] = ..., iterations: _Optional[int] = ..., trees: _Optional[int] = ...) -> None: ...

class TournamentEntrant(_message.Message):
    __slots__ = ("name", "level")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    name: str
    level: str
    def __init__(self, name: _Optional[str] = ..., level: _Optional[str] = ...) -> None: ...

class TournamentDefinition(_message.Message):
    __slots__ = ("name", "game_type", "players", "entrants", "format", "games", "seed", "duplicate", "parallel", "options", "focus", "move_time_limit", "fallback_level")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    ENTRANTS_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    FOCUS_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_LIMIT_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_LEVEL_FIELD_NUMBER: _ClassVar[int]
    name: str
    game_type: str
    players: int
    entrants: _containers.RepeatedCompositeFieldContainer[TournamentEntrant]
    format: str
    games: int
    seed: int
    duplicate: bool
    parallel: int
    options: _containers.ScalarMap[str, str]
    focus: str
    move_time_limit: float
    fallback_level: str
    def __init__(self, name: _Optional[str] = ..., game_type: _Optional[str] = ..., players: _Optional[int] = ..., entrants: _Optional[_Iterable[_Union[TournamentEntrant, _Mapping]]] = ..., format: _Optional[str] = ..., games: _Optional[int] = ..., seed: _Optional[int] = ..., duplicate: _Optional[bool] = ..., parallel: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ..., focus: _Optional[str] = ..., move_time_limit: _Optional[float] = ..., fallback_level: _Optional[str] = ...) -> None: ...

class TournamentProgress(_message.Message):
    __slots__ = ("finished_games", "total_games", "running_tables", "elapsed_seconds", "estimated_seconds_left", "failed_games")
    FINISHED_GAMES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_GAMES_FIELD_NUMBER: _ClassVar[int]
    RUNNING_TABLES_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ESTIMATED_SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    FAILED_GAMES_FIELD_NUMBER: _ClassVar[int]
    finished_games: int
    total_games: int
    running_tables: int
    elapsed_seconds: float
    estimated_seconds_left: float
    failed_games: int
    def __init__(self, finished_games: _Optional[int] = ..., total_games: _Optional[int] = ..., running_tables: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ..., estimated_seconds_left: _Optional[float] = ..., failed_games: _Optional[int] = ...) -> None: ...

class Standing(_message.Message):
    __slots__ = ("entrant", "level", "games", "points", "win_share", "ci_low", "ci_high", "mu", "sigma", "ordinal")
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    WIN_SHARE_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    entrant: str
    level: str
    games: int
    points: float
    win_share: float
    ci_low: float
    ci_high: float
    mu: float
    sigma: float
    ordinal: float
    def __init__(self, entrant: _Optional[str] = ..., level: _Optional[str] = ..., games: _Optional[int] = ..., points: _Optional[float] = ..., win_share: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ...) -> None: ...

class TournamentTable(_message.Message):
    __slots__ = ("index", "round", "seats", "deal", "game_id", "finished", "returns", "timeouts", "error")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DEAL_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    index: int
    round: int
    seats: _containers.RepeatedScalarFieldContainer[str]
    deal: int
    game_id: str
    finished: bool
    returns: _containers.RepeatedScalarFieldContainer[float]
    timeouts: _containers.RepeatedScalarFieldContainer[int]
    error: str
    def __init__(self, index: _Optional[int] = ..., round: _Optional[int] = ..., seats: _Optional[_Iterable[str]] = ..., deal: _Optional[int] = ..., game_id: _Optional[str] = ..., finished: _Optional[bool] = ..., returns: _Optional[_Iterable[float]] = ..., timeouts: _Optional[_Iterable[int]] = ..., error: _Optional[str] = ...) -> None: ...

class Tournament(_message.Message):
    __slots__ = ("definition", "status", "progress", "standings", "seat_win_share", "timeouts", "crosstable_csv", "tables", "report_json", "standings_text", "exports", "last_event_id", "errors")
    class ExportsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    SEAT_WIN_SHARE_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_FIELD_NUMBER: _ClassVar[int]
    CROSSTABLE_CSV_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    REPORT_JSON_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_TEXT_FIELD_NUMBER: _ClassVar[int]
    EXPORTS_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    definition: TournamentDefinition
    status: TournamentStatus
    progress: TournamentProgress
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    seat_win_share: _containers.RepeatedScalarFieldContainer[float]
    timeouts: int
    crosstable_csv: str
    tables: _containers.RepeatedCompositeFieldContainer[TournamentTable]
    report_json: str
    standings_text: str
    exports: _containers.ScalarMap[str, str]
    last_event_id: int
    errors: int
    def __init__(self, definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., progress: _Optional[_Union[TournamentProgress, _Mapping]] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., seat_win_share: _Optional[_Iterable[float]] = ..., timeouts: _Optional[int] = ..., crosstable_csv: _Optional[str] = ..., tables: _Optional[_Iterable[_Union[TournamentTable, _Mapping]]] = ..., report_json: _Optional[str] = ..., standings_text: _Optional[str] = ..., exports: _Optional[_Mapping[str, str]] = ..., last_event_id: _Optional[int] = ..., errors: _Optional[int] = ...) -> None: ...

class CreateTournamentRequest(_message.Message):
    __slots__ = ("definition",)
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    definition: TournamentDefinition
    def __init__(self, definition: _Optional[_Union[TournamentDefinition, _Mapping]] = ...) -> None: ...

class GetTournamentRequest(_message.Message):
    __slots__ = ("name", "include_exports")
    NAME_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_EXPORTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    include_exports: bool
    def __init__(self, name: _Optional[str] = ..., include_exports: _Optional[bool] = ...) -> None: ...

class ListTournamentsRequest(_message.Message):
    __slots__ = ("limit",)
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    limit: int
    def __init__(self, limit: _Optional[int] = ...) -> None: ...

class TournamentSummary(_message.Message):
    __slots__ = ("name", "game_type", "status", "finished_games", "total_games", "failed_games")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    FINISHED_GAMES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_GAMES_FIELD_NUMBER: _ClassVar[int]
    FAILED_GAMES_FIELD_NUMBER: _ClassVar[int]
    name: str
    game_type: str
    status: TournamentStatus
    finished_games: int
    total_games: int
    failed_games: int
    def __init__(self, name: _Optional[str] = ..., game_type: _Optional[str] = ..., status: _Optional[_Union[TournamentStatus, str]] = ..., finished_games: _Optional[int] = ..., total_games: _Optional[int] = ..., failed_games: _Optional[int] = ...) -> None: ...

class ListTournamentsResponse(_message.Message):
    __slots__ = ("tournaments",)
    TOURNAMENTS_FIELD_NUMBER: _ClassVar[int]
    tournaments: _containers.RepeatedCompositeFieldContainer[TournamentSummary]
    def __init__(self, tournaments: _Optional[_Iterable[_Union[TournamentSummary, _Mapping]]] = ...) -> None: ...

class WatchTournamentRequest(_message.Message):
    __slots__ = ("name", "after_event_id", "entrant_token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    after_event_id: int
    entrant_token: str
    def __init__(self, name: _Optional[str] = ..., after_event_id: _Optional[int] = ..., entrant_token: _Optional[str] = ...) -> None: ...

class TournamentEvent(_message.Message):
    __slots__ = ("event_id", "kind", "table", "progress", "standings", "seat", "seat_token")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[TournamentEvent.Kind]
        TABLE_STARTED: _ClassVar[TournamentEvent.Kind]
        TABLE_FINISHED: _ClassVar[TournamentEvent.Kind]
        STANDINGS_UPDATED: _ClassVar[TournamentEvent.Kind]
        TOURNAMENT_FINISHED: _ClassVar[TournamentEvent.Kind]
        TOURNAMENT_CANCELLED: _ClassVar[TournamentEvent.Kind]
    KIND_UNSPECIFIED: TournamentEvent.Kind
    TABLE_STARTED: TournamentEvent.Kind
    TABLE_FINISHED: TournamentEvent.Kind
    STANDINGS_UPDATED: TournamentEvent.Kind
    TOURNAMENT_FINISHED: TournamentEvent.Kind
    TOURNAMENT_CANCELLED: TournamentEvent.Kind
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    event_id: int
    kind: TournamentEvent.Kind
    table: TournamentTable
    progress: TournamentProgress
    standings: _containers.RepeatedCompositeFieldContainer[Standing]
    seat: int
    seat_token: str
    def __init__(self, event_id: _Optional[int] = ..., kind: _Optional[_Union[TournamentEvent.Kind, str]] = ..., table: _Optional[_Union[TournamentTable, _Mapping]] = ..., progress: _Optional[_Union[TournamentProgress, _Mapping]] = ..., standings: _Optional[_Iterable[_Union[Standing, _Mapping]]] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ...) -> None: ...

class JoinTournamentRequest(_message.Message):
    __slots__ = ("name", "entrant")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    name: str
    entrant: str
    def __init__(self, name: _Optional[str] = ..., entrant: _Optional[str] = ...) -> None: ...

class JoinTournamentResponse(_message.Message):
    __slots__ = ("name", "entrant", "entrant_token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    entrant: str
    entrant_token: str
    def __init__(self, name: _Optional[str] = ..., entrant: _Optional[str] = ..., entrant_token: _Optional[str] = ...) -> None: ...

class ListTournamentSeatsRequest(_message.Message):
    __slots__ = ("name", "entrant_token")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ENTRANT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    name: str
    entrant_token: str
    def __init__(self, name: _Optional[str] = ..., entrant_token: _Optional[str] = ...) -> None: ...

class TournamentSeat(_message.Message):
    __slots__ = ("table", "game_id", "seat", "seat_token", "finished")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    SEAT_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    table: int
    game_id: str
    seat: int
    seat_token: str
    finished: bool
    def __init__(self, table: _Optional[int] = ..., game_id: _Optional[str] = ..., seat: _Optional[int] = ..., seat_token: _Optional[str] = ..., finished: _Optional[bool] = ...) -> None: ...

class ListTournamentSeatsResponse(_message.Message):
    __slots__ = ("seats",)
    SEATS_FIELD_NUMBER: _ClassVar[int]
    seats: _containers.RepeatedCompositeFieldContainer[TournamentSeat]
    def __init__(self, seats: _Optional[_Iterable[_Union[TournamentSeat, _Mapping]]] = ...) -> None: ...

class CancelTournamentRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class AddBotRequest(_message.Message):
    __slots__ = ("game_id", "seat", "bot_level", "name", "creator_token", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CREATOR_TOKEN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    bot_level: str
    name: str
    creator_token: str
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., bot_level: _Optional[str] = ..., name: _Optional[str] = ..., creator_token: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class HandOverSeatRequest(_message.Message):
    __slots__ = ("game_id", "token", "bot_level", "for_good", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_LEVEL_FIELD_NUMBER: _ClassVar[int]
    FOR_GOOD_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    bot_level: str
    for_good: bool
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., bot_level: _Optional[str] = ..., for_good: _Optional[bool] = ..., request_id: _Optional[str] = ...) -> None: ...

class TakeBackSeatRequest(_message.Message):
    __slots__ = ("game_id", "token", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class SetSeatOptionsRequest(_message.Message):
    __slots__ = ("game_id", "token", "decline_offers", "request_id")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    DECLINE_OFFERS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    token: str
    decline_offers: bool
    request_id: str
    def __init__(self, game_id: _Optional[str] = ..., token: _Optional[str] = ..., decline_offers: _Optional[bool] = ..., request_id: _Optional[str] = ...) -> None: ...

class SeatChangeResponse(_message.Message):
    __slots__ = ("game_id", "now", "version", "duplicate")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    NOW_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DUPLICATE_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    now: Seat
    version: int
    duplicate: bool
    def __init__(self, game_id: _Optional[str] = ..., now: _Optional[_Union[Seat, _Mapping]] = ..., version: _Optional[int] = ..., duplicate: _Optional[bool] = ...) -> None: ...

class ExportGamesRequest(_message.Message):
    __slots__ = ("game_type", "since", "player", "tournament", "bot")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    TOURNAMENT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    since: str
    player: str
    tournament: str
    bot: str
    def __init__(self, game_type: _Optional[str] = ..., since: _Optional[str] = ..., player: _Optional[str] = ..., tournament: _Optional[str] = ..., bot: _Optional[str] = ...) -> None: ...

class ExportedGame(_message.Message):
    __slots__ = ("json",)
    JSON_FIELD_NUMBER: _ClassVar[int]
    json: str
    def __init__(self, json: _Optional[str] = ...) -> None: ...

class RegisterBotRequest(_message.Message):
    __slots__ = ("name", "game_type", "players")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    name: str
    game_type: str
    players: int
    def __init__(self, name: _Optional[str] = ..., game_type: _Optional[str] = ..., players: _Optional[int] = ...) -> None: ...

class RegisterBotResponse(_message.Message):
    __slots__ = ("bot", "key", "info")
    BOT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    bot: str
    key: str
    info: BotInfo
    def __init__(self, bot: _Optional[str] = ..., key: _Optional[str] = ..., info: _Optional[_Union[BotInfo, _Mapping]] = ...) -> None: ...

class BotFaults(_message.Message):
    __slots__ = ("late", "garbage", "illegal", "missing")
    LATE_FIELD_NUMBER: _ClassVar[int]
    GARBAGE_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_FIELD_NUMBER: _ClassVar[int]
    MISSING_FIELD_NUMBER: _ClassVar[int]
    late: int
    garbage: int
    illegal: int
    missing: int
    def __init__(self, late: _Optional[int] = ..., garbage: _Optional[int] = ..., illegal: _Optional[int] = ..., missing: _Optional[int] = ...) -> None: ...

class BotInfo(_message.Message):
    __slots__ = ("bot", "game_type", "players", "status", "reason", "games", "moves", "faults", "faults_in_row", "connected", "created_at")
    BOT_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    FAULTS_FIELD_NUMBER: _ClassVar[int]
    FAULTS_IN_ROW_FIELD_NUMBER: _ClassVar[int]
    CONNECTED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    bot: str
    game_type: str
    players: int
    status: BotAccountStatus
    reason: str
    games: int
    moves: int
    faults: BotFaults
    faults_in_row: int
    connected: bool
    created_at: float
    def __init__(self, bot: _Optional[str] = ..., game_type: _Optional[str] = ..., players: _Optional[int] = ..., status: _Optional[_Union[BotAccountStatus, str]] = ..., reason: _Optional[str] = ..., games: _Optional[int] = ..., moves: _Optional[int] = ..., faults: _Optional[_Union[BotFaults, _Mapping]] = ..., faults_in_row: _Optional[int] = ..., connected: _Optional[bool] = ..., created_at: _Optional[float] = ...) -> None: ...

class ListBotsRequest(_message.Message):
    __slots__ = ("game_type", "players")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    players: int
    def __init__(self, game_type: _Optional[str] = ..., players: _Optional[int] = ...) -> None: ...

class ListBotsResponse(_message.Message):
    __slots__ = ("bots",)
    BOTS_FIELD_NUMBER: _ClassVar[int]
    bots: _containers.RepeatedCompositeFieldContainer[BotInfo]
    def __init__(self, bots: _Optional[_Iterable[_Union[BotInfo, _Mapping]]] = ...) -> None: ...

class RevokeBotRequest(_message.Message):
    __slots__ = ("name", "key")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    name: str
    key: str
    def __init__(self, name: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class GetBotRequest(_message.Message):
    __slots__ = ("name", "limit")
    NAME_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    name: str
    limit: int
    def __init__(self, name: _Optional[str] = ..., limit: _Optional[int] = ...) -> None: ...

class BotGame(_message.Message):
    __slots__ = ("game_id", "finished_at", "seat", "returned", "validation", "mu", "sigma", "ordinal", "opponents")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    FINISHED_AT_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RETURNED_FIELD_NUMBER: _ClassVar[int]
    VALIDATION_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    OPPONENTS_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    finished_at: float
    seat: int
    returned: float
    validation: bool
    mu: float
    sigma: float
    ordinal: float
    opponents: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_id: _Optional[str] = ..., finished_at: _Optional[float] = ..., seat: _Optional[int] = ..., returned: _Optional[float] = ..., validation: _Optional[bool] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., opponents: _Optional[_Iterable[str]] = ...) -> None: ...

class BotPage(_message.Message):
    __slots__ = ("bot", "standing", "games")
    BOT_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    bot: BotInfo
    standing: LadderStanding
    games: _containers.RepeatedCompositeFieldContainer[BotGame]
    def __init__(self, bot: _Optional[_Union[BotInfo, _Mapping]] = ..., standing: _Optional[_Union[LadderStanding, _Mapping]] = ..., games: _Optional[_Iterable[_Union[BotGame, _Mapping]]] = ...) -> None: ...

class ConnectBotRequest(_message.Message):
    __slots__ = ("key", "concurrency", "protocol")
    KEY_FIELD_NUMBER: _ClassVar[int]
    CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    key: str
    concurrency: int
    protocol: int
    def __init__(self, key: _Optional[str] = ..., concurrency: _Optional[int] = ..., protocol: _Optional[int] = ...) -> None: ...

class BotDirective(_message.Message):
    __slots__ = ("kind", "line", "game_id", "version", "ms_left", "bot", "message")
    class Kind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        KIND_UNSPECIFIED: _ClassVar[BotDirective.Kind]
        WELCOME: _ClassVar[BotDirective.Kind]
        START: _ClassVar[BotDirective.Kind]
        ACT: _ClassVar[BotDirective.Kind]
        END: _ClassVar[BotDirective.Kind]
        PAUSED: _ClassVar[BotDirective.Kind]
    KIND_UNSPECIFIED: BotDirective.Kind
    WELCOME: BotDirective.Kind
    START: BotDirective.Kind
    ACT: BotDirective.Kind
    END: BotDirective.Kind
    PAUSED: BotDirective.Kind
    KIND_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    MS_LEFT_FIELD_NUMBER: _ClassVar[int]
    BOT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    kind: BotDirective.Kind
    line: str
    game_id: str
    version: int
    ms_left: int
    bot: str
    message: str
    def __init__(self, kind: _Optional[_Union[BotDirective.Kind, str]] = ..., line: _Optional[str] = ..., game_id: _Optional[str] = ..., version: _Optional[int] = ..., ms_left: _Optional[int] = ..., bot: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class BotReplyRequest(_message.Message):
    __slots__ = ("key", "game_id", "version", "line", "error")
    KEY_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    key: str
    game_id: str
    version: int
    line: str
    error: str
    def __init__(self, key: _Optional[str] = ..., game_id: _Optional[str] = ..., version: _Optional[int] = ..., line: _Optional[str] = ..., error: _Optional[str] = ...) -> None: ...

class BotReplyResponse(_message.Message):
    __slots__ = ("outcome", "fault", "notation", "version", "paused", "message")
    class Outcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        OUTCOME_UNSPECIFIED: _ClassVar[BotReplyResponse.Outcome]
        PLAYED: _ClassVar[BotReplyResponse.Outcome]
        FALLBACK: _ClassVar[BotReplyResponse.Outcome]
        STALE: _ClassVar[BotReplyResponse.Outcome]
    OUTCOME_UNSPECIFIED: BotReplyResponse.Outcome
    PLAYED: BotReplyResponse.Outcome
    FALLBACK: BotReplyResponse.Outcome
    STALE: BotReplyResponse.Outcome
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PAUSED_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    outcome: BotReplyResponse.Outcome
    fault: str
    notation: str
    version: int
    paused: bool
    message: str
    def __init__(self, outcome: _Optional[_Union[BotReplyResponse.Outcome, str]] = ..., fault: _Optional[str] = ..., notation: _Optional[str] = ..., version: _Optional[int] = ..., paused: _Optional[bool] = ..., message: _Optional[str] = ...) -> None: ...

class GetLadderRequest(_message.Message):
    __slots__ = ("game_type", "players")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    players: int
    def __init__(self, game_type: _Optional[str] = ..., players: _Optional[int] = ...) -> None: ...

class LadderStanding(_message.Message):
    __slots__ = ("bot", "level", "games", "mu", "sigma", "ordinal", "win_share", "ci_low", "ci_high")
    BOT_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    WIN_SHARE_FIELD_NUMBER: _ClassVar[int]
    CI_LOW_FIELD_NUMBER: _ClassVar[int]
    CI_HIGH_FIELD_NUMBER: _ClassVar[int]
    bot: str
    level: str
    games: int
    mu: float
    sigma: float
    ordinal: float
    win_share: float
    ci_low: float
    ci_high: float
    def __init__(self, bot: _Optional[str] = ..., level: _Optional[str] = ..., games: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., win_share: _Optional[float] = ..., ci_low: _Optional[float] = ..., ci_high: _Optional[float] = ...) -> None: ...

class Ladder(_message.Message):
    __slots__ = ("game_type", "players", "standings", "house", "standings_text", "ladders")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_FIELD_NUMBER: _ClassVar[int]
    HOUSE_FIELD_NUMBER: _ClassVar[int]
    STANDINGS_TEXT_FIELD_NUMBER: _ClassVar[int]
    LADDERS_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    players: int
    standings: _containers.RepeatedCompositeFieldContainer[LadderStanding]
    house: _containers.RepeatedScalarFieldContainer[str]
    standings_text: str
    ladders: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, game_type: _Optional[str] = ..., players: _Optional[int] = ..., standings: _Optional[_Iterable[_Union[LadderStanding, _Mapping]]] = ..., house: _Optional[_Iterable[str]] = ..., standings_text: _Optional[str] = ..., ladders: _Optional[_Iterable[str]] = ...) -> None: ...

class AccountRating(_message.Message):
    __slots__ = ("game_type", "players", "mu", "sigma", "ordinal", "games", "history")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    HISTORY_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    players: int
    mu: float
    sigma: float
    ordinal: float
    games: int
    history: _containers.RepeatedCompositeFieldContainer[RatingPoint]
    def __init__(self, game_type: _Optional[str] = ..., players: _Optional[int] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ..., games: _Optional[int] = ..., history: _Optional[_Iterable[_Union[RatingPoint, _Mapping]]] = ...) -> None: ...

class RatingPoint(_message.Message):
    __slots__ = ("game_id", "rated_at", "mu", "sigma", "ordinal")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    RATED_AT_FIELD_NUMBER: _ClassVar[int]
    MU_FIELD_NUMBER: _ClassVar[int]
    SIGMA_FIELD_NUMBER: _ClassVar[int]
    ORDINAL_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    rated_at: float
    mu: float
    sigma: float
    ordinal: float
    def __init__(self, game_id: _Optional[str] = ..., rated_at: _Optional[float] = ..., mu: _Optional[float] = ..., sigma: _Optional[float] = ..., ordinal: _Optional[float] = ...) -> None: ...

class Account(_message.Message):
    __slots__ = ("name", "kind", "ratings", "games_played", "created_at", "revoked")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    RATINGS_FIELD_NUMBER: _ClassVar[int]
    GAMES_PLAYED_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    REVOKED_FIELD_NUMBER: _ClassVar[int]
    name: str
    kind: AccountKind
    ratings: _containers.RepeatedCompositeFieldContainer[AccountRating]
    games_played: int
    created_at: float
    revoked: bool
    def __init__(self, name: _Optional[str] = ..., kind: _Optional[_Union[AccountKind, str]] = ..., ratings: _Optional[_Iterable[_Union[AccountRating, _Mapping]]] = ..., games_played: _Optional[int] = ..., created_at: _Optional[float] = ..., revoked: _Optional[bool] = ...) -> None: ...

class CreateAccountRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class CreateAccountResponse(_message.Message):
    __slots__ = ("account", "key", "info")
    ACCOUNT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    account: str
    key: str
    info: Account
    def __init__(self, account: _Optional[str] = ..., key: _Optional[str] = ..., info: _Optional[_Union[Account, _Mapping]] = ...) -> None: ...

class GetAccountRequest(_message.Message):
    __slots__ = ("name",)
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class RotateAccountKeyRequest(_message.Message):
    __slots__ = ("name", "key")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    name: str
    key: str
    def __init__(self, name: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class RevokeAccountRequest(_message.Message):
    __slots__ = ("name", "key")
    NAME_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    name: str
    key: str
    def __init__(self, name: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class WatchPlayerRequest(_message.Message):
    __slots__ = ("key", "after_event_id")
    KEY_FIELD_NUMBER: _ClassVar[int]
    AFTER_EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    key: str
    after_event_id: int
    def __init__(self, key: _Optional[str] = ..., after_event_id: _Optional[int] = ...) -> None: ...

class PlayerEvent(_message.Message):
    __slots__ = ("event_id", "kind", "at", "game_id", "game_type", "seat", "version", "seconds_left", "returns", "your_return", "rating_change", "challenge")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    AT_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    SECONDS_LEFT_FIELD_NUMBER: _ClassVar[int]
    RETURNS_FIELD_NUMBER: _ClassVar[int]
    YOUR_RETURN_FIELD_NUMBER: _ClassVar[int]
    RATING_CHANGE_FIELD_NUMBER: _ClassVar[int]
    CHALLENGE_FIELD_NUMBER: _ClassVar[int]
    event_id: int
    kind: PlayerEventKind
    at: float
    game_id: str
    game_type: str
    seat: int
    version: int
    seconds_left: float
    returns: _containers.RepeatedScalarFieldContainer[float]
    your_return: float
    rating_change: float
    challenge: ChallengeInfo
    def __init__(self, event_id: _Optional[int] = ..., kind: _Optional[_Union[PlayerEventKind, str]] = ..., at: _Optional[float] = ..., game_id: _Optional[str] = ..., game_type: _Optional[str] = ..., seat: _Optional[int] = ..., version: _Optional[int] = ..., seconds_left: _Optional[float] = ..., returns: _Optional[_Iterable[float]] = ..., your_return: _Optional[float] = ..., rating_change: _Optional[float] = ..., challenge: _Optional[_Union[ChallengeInfo, _Mapping]] = ...) -> None: ...

class ChallengeInfo(_message.Message):
    __slots__ = ("challenge_id", "challenger", "challenged", "game_type", "options", "state", "game_id", "created_at", "expires_at")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    CHALLENGER_FIELD_NUMBER: _ClassVar[int]
    CHALLENGED_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    challenger: str
    challenged: str
    game_type: str
    options: _containers.ScalarMap[str, str]
    state: ChallengeState
    game_id: str
    created_at: float
    expires_at: float
    def __init__(self, challenge_id: _Optional[str] = ..., challenger: _Optional[str] = ..., challenged: _Optional[str] = ..., game_type: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., state: _Optional[_Union[ChallengeState, str]] = ..., game_id: _Optional[str] = ..., created_at: _Optional[float] = ..., expires_at: _Optional[float] = ...) -> None: ...

class ChallengeRequest(_message.Message):
    __slots__ = ("name", "game_type", "options", "key")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    name: str
    game_type: str
    options: _containers.ScalarMap[str, str]
    key: str
    def __init__(self, name: _Optional[str] = ..., game_type: _Optional[str] = ..., options: _Optional[_Mapping[str, str]] = ..., key: _Optional[str] = ...) -> None: ...

class AnswerChallengeRequest(_message.Message):
    __slots__ = ("challenge_id", "accept", "key")
    CHALLENGE_ID_FIELD_NUMBER: _ClassVar[int]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    challenge_id: str
    accept: bool
    key: str
    def __init__(self, challenge_id: _Optional[str] = ..., accept: _Optional[bool] = ..., key: _Optional[str] = ...) -> None: ...

class MatchmakeRequest(_message.Message):
    __slots__ = ("game_type", "players", "key")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    players: int
    key: str
    def __init__(self, game_type: _Optional[str] = ..., players: _Optional[int] = ..., key: _Optional[str] = ...) -> None: ...

class MatchmakeResponse(_message.Message):
    __slots__ = ("game_id", "seat", "token", "bots", "rated")
    GAME_ID_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOTS_FIELD_NUMBER: _ClassVar[int]
    RATED_FIELD_NUMBER: _ClassVar[int]
    game_id: str
    seat: int
    token: str
    bots: int
    rated: bool
    def __init__(self, game_id: _Optional[str] = ..., seat: _Optional[int] = ..., token: _Optional[str] = ..., bots: _Optional[int] = ..., rated: _Optional[bool] = ...) -> None: ...

class LeaveQueueRequest(_message.Message):
    __slots__ = ("key",)
    KEY_FIELD_NUMBER: _ClassVar[int]
    key: str
    def __init__(self, key: _Optional[str] = ...) -> None: ...

class LeaveQueueResponse(_message.Message):
    __slots__ = ("game_type", "players")
    GAME_TYPE_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    game_type: str
    players: int
    def __init__(self, game_type: _Optional[str] = ..., players: _Optional[int] = ...) -> None: ...
