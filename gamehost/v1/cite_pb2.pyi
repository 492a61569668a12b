from collections.abc import Iterable as _Iterable
from collections.abc import Mapping as _Mapping
from typing import ClassVar as _ClassVar

from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper

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
    __slots__ = (
        "seat",
        "standing",
        "gold",
        "wheat",
        "health",
        "civilians",
        "army",
        "has_granary",
        "granary_wheat",
        "has_outpost",
        "outpost_army",
        "holds_card",
        "card",
    )
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
    def __init__(
        self,
        seat: int | None = ...,
        standing: bool | None = ...,
        gold: int | None = ...,
        wheat: int | None = ...,
        health: int | None = ...,
        civilians: int | None = ...,
        army: int | None = ...,
        has_granary: bool | None = ...,
        granary_wheat: int | None = ...,
        has_outpost: bool | None = ...,
        outpost_army: int | None = ...,
        holds_card: bool | None = ...,
        card: CiteCard | str | None = ...,
    ) -> None: ...

class CiteCardCount(_message.Message):
    __slots__ = ("card", "count")
    CARD_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    card: CiteCard
    count: int
    def __init__(self, card: CiteCard | str | None = ..., count: int | None = ...) -> None: ...

class CiteView(_message.Message):
    __slots__ = (
        "cities",
        "deck_count",
        "discard",
        "round",
        "round_limit",
        "turn_seat",
        "phase",
        "drawn",
        "resolving_seat",
        "levied",
    )
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
    def __init__(
        self,
        cities: _Iterable[CiteCity | _Mapping] | None = ...,
        deck_count: int | None = ...,
        discard: _Iterable[CiteCardCount | _Mapping] | None = ...,
        round: int | None = ...,
        round_limit: int | None = ...,
        turn_seat: int | None = ...,
        phase: CitePhase | str | None = ...,
        drawn: _Iterable[CiteCard | str] | None = ...,
        resolving_seat: int | None = ...,
        levied: bool | None = ...,
    ) -> None: ...
