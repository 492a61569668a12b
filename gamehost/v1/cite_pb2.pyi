from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CiteCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CITE_CARD_UNSPECIFIED: _ClassVar[CiteCard]
    GRANARY: _ClassVar[CiteCard]
    GOOD_WAR: _ClassVar[CiteCard]
    OUTPOST: _ClassVar[CiteCard]
    ALLEGIANCE: _ClassVar[CiteCard]
    HOSPITAL: _ClassVar[CiteCard]
    FIRE: _ClassVar[CiteCard]
    BARBARIANS: _ClassVar[CiteCard]
    CIVIL_WAR: _ClassVar[CiteCard]
    LAND_OF_WELCOME: _ClassVar[CiteCard]

class CitePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CITE_PHASE_UNSPECIFIED: _ClassVar[CitePhase]
    CITE_UPKEEP_AND_ROLL: _ClassVar[CitePhase]
    CITE_LEVY: _ClassVar[CitePhase]
    CITE_STORE: _ClassVar[CitePhase]
    CITE_DRAW: _ClassVar[CitePhase]
    CITE_DEAL: _ClassVar[CitePhase]
    CITE_RESOLVE: _ClassVar[CitePhase]
    CITE_WAR_SPOILS: _ClassVar[CitePhase]
    CITE_OVER: _ClassVar[CitePhase]
CITE_CARD_UNSPECIFIED: CiteCard
GRANARY: CiteCard
GOOD_WAR: CiteCard
OUTPOST: CiteCard
ALLEGIANCE: CiteCard
HOSPITAL: CiteCard
FIRE: CiteCard
BARBARIANS: CiteCard
CIVIL_WAR: CiteCard
LAND_OF_WELCOME: CiteCard
CITE_PHASE_UNSPECIFIED: CitePhase
CITE_UPKEEP_AND_ROLL: CitePhase
CITE_LEVY: CitePhase
CITE_STORE: CitePhase
CITE_DRAW: CitePhase
CITE_DEAL: CitePhase
CITE_RESOLVE: CitePhase
CITE_WAR_SPOILS: CitePhase
CITE_OVER: CitePhase

class CiteCity(_message.Message):
    __slots__ = ("seat", "standing", "gold", "wheat", "health", "civilians", "army", "has_granary", "granary_wheat", "has_outpost", "outpost_army", "holds_card", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    STANDING_FIELD_NUMBER: _ClassVar[int]
    GOLD_FIELD_NUMBER: _ClassVar[int]
    WHEAT_FIELD_NUMBER: _ClassVar[int]
    HEALTH_FIELD_NUMBER: _ClassVar[int]
    CIVILIANS_FIELD_NUMBER: _ClassVar[int]
    ARMY_FIELD_NUMBER: _ClassVar[int]
    HAS_GRANARY_FIELD_NUMBER: _ClassVar[int]
    GRANARY_WHEAT_FIELD_NUMBER: _ClassVar[int]
    HAS_OUTPOST_FIELD_NUMBER: _ClassVar[int]
    OUTPOST_ARMY_FIELD_NUMBER: _ClassVar[int]
    HOLDS_CARD_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    standing: bool
    gold: int
    wheat: int
    health: int
    civilians: int
    army: int
    has_granary: bool
    granary_wheat: int
    has_outpost: bool
    outpost_army: int
    holds_card: bool
    card: CiteCard
    def __init__(self, seat: _Optional[int] = ..., standing: _Optional[bool] = ..., gold: _Optional[int] = ..., wheat: _Optional[int] = ..., health: _Optional[int] = ..., civilians: _Optional[int] = ..., army: _Optional[int] = ..., has_granary: _Optional[bool] = ..., granary_wheat: _Optional[int] = ..., has_outpost: _Optional[bool] = ..., outpost_army: _Optional[int] = ..., holds_card: _Optional[bool] = ..., card: _Optional[_Union[CiteCard, str]] = ...) -> None: ...

class CiteCardCount(_message.Message):
    __slots__ = ("card", "count")
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    card: CiteCard
    count: int
    def __init__(self, card: _Optional[_Union[CiteCard, str]] = ..., count: _Optional[int] = ...) -> None: ...

class CiteView(_message.Message):
    __slots__ = ("cities", "deck_count", "discard", "round", "round_limit", "turn_seat", "phase", "drawn", "resolving_seat", "levied", "winners")
    CITIES_FIELD_NUMBER: _ClassVar[int]
    DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ROUND_LIMIT_FIELD_NUMBER: _ClassVar[int]
    TURN_SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    DRAWN_FIELD_NUMBER: _ClassVar[int]
    RESOLVING_SEAT_FIELD_NUMBER: _ClassVar[int]
    LEVIED_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    cities: _containers.RepeatedCompositeFieldContainer[CiteCity]
    deck_count: int
    discard: _containers.RepeatedCompositeFieldContainer[CiteCardCount]
    round: int
    round_limit: int
    turn_seat: int
    phase: CitePhase
    drawn: _containers.RepeatedScalarFieldContainer[CiteCard]
    resolving_seat: int
    levied: bool
    winners: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, cities: _Optional[_Iterable[_Union[CiteCity, _Mapping]]] = ..., deck_count: _Optional[int] = ..., discard: _Optional[_Iterable[_Union[CiteCardCount, _Mapping]]] = ..., round: _Optional[int] = ..., round_limit: _Optional[int] = ..., turn_seat: _Optional[int] = ..., phase: _Optional[_Union[CitePhase, str]] = ..., drawn: _Optional[_Iterable[_Union[CiteCard, str]]] = ..., resolving_seat: _Optional[int] = ..., levied: _Optional[bool] = ..., winners: _Optional[_Iterable[int]] = ...) -> None: ...
