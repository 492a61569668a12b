from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EndeavorPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ENDEAVOR_PHASE_UNSPECIFIED: _ClassVar[EndeavorPhase]
    ENDEAVOR_BUILD: _ClassVar[EndeavorPhase]
    ENDEAVOR_SALARY: _ClassVar[EndeavorPhase]
    ENDEAVOR_ACTION: _ClassVar[EndeavorPhase]
    ENDEAVOR_SECOND_HALF: _ClassVar[EndeavorPhase]
    ENDEAVOR_DISCARD: _ClassVar[EndeavorPhase]
    ENDEAVOR_OVER: _ClassVar[EndeavorPhase]
ENDEAVOR_PHASE_UNSPECIFIED: EndeavorPhase
ENDEAVOR_BUILD: EndeavorPhase
ENDEAVOR_SALARY: EndeavorPhase
ENDEAVOR_ACTION: EndeavorPhase
ENDEAVOR_SECOND_HALF: EndeavorPhase
ENDEAVOR_DISCARD: EndeavorPhase
ENDEAVOR_OVER: EndeavorPhase

class EndeavorCount(_message.Message):
    __slots__ = ("name", "count")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    count: int
    def __init__(self, name: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class EndeavorBuilding(_message.Message):
    __slots__ = ("name", "count", "occupied")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    OCCUPIED_FIELD_NUMBER: _ClassVar[int]
    name: str
    count: int
    occupied: int
    def __init__(self, name: _Optional[str] = ..., count: _Optional[int] = ..., occupied: _Optional[int] = ...) -> None: ...

class EndeavorScore(_message.Message):
    __slots__ = ("tracks", "cities", "connections", "cards", "buildings", "free_governor_slot", "harbor", "slavery", "total")
    TRACKS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    BUILDINGS_FIELD_NUMBER: _ClassVar[int]
    FREE_GOVERNOR_SLOT_FIELD_NUMBER: _ClassVar[int]
    HARBOR_FIELD_NUMBER: _ClassVar[int]
    SLAVERY_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    tracks: int
    cities: int
    connections: int
    cards: int
    buildings: int
    free_governor_slot: int
    harbor: int
    slavery: int
    total: int
    def __init__(self, tracks: _Optional[int] = ..., cities: _Optional[int] = ..., connections: _Optional[int] = ..., cards: _Optional[int] = ..., buildings: _Optional[int] = ..., free_governor_slot: _Optional[int] = ..., harbor: _Optional[int] = ..., slavery: _Optional[int] = ..., total: _Optional[int] = ...) -> None: ...

class EndeavorPlayer(_message.Message):
    __slots__ = ("seat", "industry", "culture", "finance", "politics", "building_level", "growth", "salary", "card_slots", "supply", "harbor", "on_buildings", "buildings", "blue_tokens", "brown_tokens", "cards", "face_down_slavery", "passed", "score")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    INDUSTRY_FIELD_NUMBER: _ClassVar[int]
    CULTURE_FIELD_NUMBER: _ClassVar[int]
    FINANCE_FIELD_NUMBER: _ClassVar[int]
    POLITICS_FIELD_NUMBER: _ClassVar[int]
    BUILDING_LEVEL_FIELD_NUMBER: _ClassVar[int]
    GROWTH_FIELD_NUMBER: _ClassVar[int]
    SALARY_FIELD_NUMBER: _ClassVar[int]
    CARD_SLOTS_FIELD_NUMBER: _ClassVar[int]
    SUPPLY_FIELD_NUMBER: _ClassVar[int]
    HARBOR_FIELD_NUMBER: _ClassVar[int]
    ON_BUILDINGS_FIELD_NUMBER: _ClassVar[int]
    BUILDINGS_FIELD_NUMBER: _ClassVar[int]
    BLUE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BROWN_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    FACE_DOWN_SLAVERY_FIELD_NUMBER: _ClassVar[int]
    PASSED_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    industry: int
    culture: int
    finance: int
    politics: int
    building_level: int
    growth: int
    salary: int
    card_slots: int
    supply: int
    harbor: int
    on_buildings: int
    buildings: _containers.RepeatedCompositeFieldContainer[EndeavorBuilding]
    blue_tokens: _containers.RepeatedCompositeFieldContainer[EndeavorCount]
    brown_tokens: _containers.RepeatedCompositeFieldContainer[EndeavorCount]
    cards: _containers.RepeatedScalarFieldContainer[str]
    face_down_slavery: _containers.RepeatedScalarFieldContainer[str]
    passed: bool
    score: EndeavorScore
    def __init__(self, seat: _Optional[int] = ..., industry: _Optional[int] = ..., culture: _Optional[int] = ..., finance: _Optional[int] = ..., politics: _Optional[int] = ..., building_level: _Optional[int] = ..., growth: _Optional[int] = ..., salary: _Optional[int] = ..., card_slots: _Optional[int] = ..., supply: _Optional[int] = ..., harbor: _Optional[int] = ..., on_buildings: _Optional[int] = ..., buildings: _Optional[_Iterable[_Union[EndeavorBuilding, _Mapping]]] = ..., blue_tokens: _Optional[_Iterable[_Union[EndeavorCount, _Mapping]]] = ..., brown_tokens: _Optional[_Iterable[_Union[EndeavorCount, _Mapping]]] = ..., cards: _Optional[_Iterable[str]] = ..., face_down_slavery: _Optional[_Iterable[str]] = ..., passed: _Optional[bool] = ..., score: _Optional[_Union[EndeavorScore, _Mapping]] = ...) -> None: ...

class EndeavorCity(_message.Message):
    __slots__ = ("id", "region", "glory", "owner", "token")
    ID_FIELD_NUMBER: _ClassVar[int]
    REGION_FIELD_NUMBER: _ClassVar[int]
    GLORY_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    id: str
    region: str
    glory: int
    owner: int
    token: str
    def __init__(self, id: _Optional[str] = ..., region: _Optional[str] = ..., glory: _Optional[int] = ..., owner: _Optional[int] = ..., token: _Optional[str] = ...) -> None: ...

class EndeavorConnection(_message.Message):
    __slots__ = ("a", "b", "token")
    A_FIELD_NUMBER: _ClassVar[int]
    B_FIELD_NUMBER: _ClassVar[int]
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    a: str
    b: str
    token: str
    def __init__(self, a: _Optional[str] = ..., b: _Optional[str] = ..., token: _Optional[str] = ...) -> None: ...

class EndeavorRegion(_message.Message):
    __slots__ = ("id", "open", "track", "track_tokens", "beside_track", "presence")
    ID_FIELD_NUMBER: _ClassVar[int]
    OPEN_FIELD_NUMBER: _ClassVar[int]
    TRACK_FIELD_NUMBER: _ClassVar[int]
    TRACK_TOKENS_FIELD_NUMBER: _ClassVar[int]
    BESIDE_TRACK_FIELD_NUMBER: _ClassVar[int]
    PRESENCE_FIELD_NUMBER: _ClassVar[int]
    id: str
    open: bool
    track: _containers.RepeatedScalarFieldContainer[int]
    track_tokens: _containers.RepeatedScalarFieldContainer[str]
    beside_track: _containers.RepeatedScalarFieldContainer[int]
    presence: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, id: _Optional[str] = ..., open: _Optional[bool] = ..., track: _Optional[_Iterable[int]] = ..., track_tokens: _Optional[_Iterable[str]] = ..., beside_track: _Optional[_Iterable[int]] = ..., presence: _Optional[_Iterable[int]] = ...) -> None: ...

class EndeavorDeck(_message.Message):
    __slots__ = ("id", "cards")
    ID_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    id: str
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class EndeavorView(_message.Message):
    __slots__ = ("round", "phase", "crown_seat", "to_move", "pending", "pending_target", "salary_left", "track_glory", "abolished", "players", "cities", "connections", "regions", "decks", "building_supply", "spent_tokens", "scores", "winners")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    CROWN_SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    PENDING_TARGET_FIELD_NUMBER: _ClassVar[int]
    SALARY_LEFT_FIELD_NUMBER: _ClassVar[int]
    TRACK_GLORY_FIELD_NUMBER: _ClassVar[int]
    ABOLISHED_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CITIES_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    REGIONS_FIELD_NUMBER: _ClassVar[int]
    DECKS_FIELD_NUMBER: _ClassVar[int]
    BUILDING_SUPPLY_FIELD_NUMBER: _ClassVar[int]
    SPENT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    round: int
    phase: EndeavorPhase
    crown_seat: int
    to_move: int
    pending: str
    pending_target: str
    salary_left: int
    track_glory: str
    abolished: bool
    players: _containers.RepeatedCompositeFieldContainer[EndeavorPlayer]
    cities: _containers.RepeatedCompositeFieldContainer[EndeavorCity]
    connections: _containers.RepeatedCompositeFieldContainer[EndeavorConnection]
    regions: _containers.RepeatedCompositeFieldContainer[EndeavorRegion]
    decks: _containers.RepeatedCompositeFieldContainer[EndeavorDeck]
    building_supply: _containers.RepeatedCompositeFieldContainer[EndeavorCount]
    spent_tokens: _containers.RepeatedCompositeFieldContainer[EndeavorCount]
    scores: _containers.RepeatedScalarFieldContainer[int]
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, round: _Optional[int] = ..., phase: _Optional[_Union[EndeavorPhase, str]] = ..., crown_seat: _Optional[int] = ..., to_move: _Optional[int] = ..., pending: _Optional[str] = ..., pending_target: _Optional[str] = ..., salary_left: _Optional[int] = ..., track_glory: _Optional[str] = ..., abolished: _Optional[bool] = ..., players: _Optional[_Iterable[_Union[EndeavorPlayer, _Mapping]]] = ..., cities: _Optional[_Iterable[_Union[EndeavorCity, _Mapping]]] = ..., connections: _Optional[_Iterable[_Union[EndeavorConnection, _Mapping]]] = ..., regions: _Optional[_Iterable[_Union[EndeavorRegion, _Mapping]]] = ..., decks: _Optional[_Iterable[_Union[EndeavorDeck, _Mapping]]] = ..., building_supply: _Optional[_Iterable[_Union[EndeavorCount, _Mapping]]] = ..., spent_tokens: _Optional[_Iterable[_Union[EndeavorCount, _Mapping]]] = ..., scores: _Optional[_Iterable[int]] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...
