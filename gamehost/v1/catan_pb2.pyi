from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CatanResource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CATAN_RESOURCE_UNSPECIFIED: _ClassVar[CatanResource]
    CATAN_BRICK: _ClassVar[CatanResource]
    CATAN_LUMBER: _ClassVar[CatanResource]
    CATAN_WOOL: _ClassVar[CatanResource]
    CATAN_GRAIN: _ClassVar[CatanResource]
    CATAN_ORE: _ClassVar[CatanResource]

class CatanTerrain(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CATAN_TERRAIN_UNSPECIFIED: _ClassVar[CatanTerrain]
    CATAN_HILLS: _ClassVar[CatanTerrain]
    CATAN_FOREST: _ClassVar[CatanTerrain]
    CATAN_PASTURE: _ClassVar[CatanTerrain]
    CATAN_FIELDS: _ClassVar[CatanTerrain]
    CATAN_MOUNTAINS: _ClassVar[CatanTerrain]
    CATAN_DESERT: _ClassVar[CatanTerrain]

class CatanDevCard(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CATAN_DEV_CARD_UNSPECIFIED: _ClassVar[CatanDevCard]
    CATAN_KNIGHT: _ClassVar[CatanDevCard]
    CATAN_ROAD_BUILDING: _ClassVar[CatanDevCard]
    CATAN_YEAR_OF_PLENTY: _ClassVar[CatanDevCard]
    CATAN_MONOPOLY: _ClassVar[CatanDevCard]
    CATAN_VICTORY_POINT: _ClassVar[CatanDevCard]

class CatanPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CATAN_PHASE_UNSPECIFIED: _ClassVar[CatanPhase]
    CATAN_SETUP_SETTLEMENT: _ClassVar[CatanPhase]
    CATAN_SETUP_ROAD: _ClassVar[CatanPhase]
    CATAN_PRE_ROLL: _ClassVar[CatanPhase]
    CATAN_ROLL: _ClassVar[CatanPhase]
    CATAN_DISCARD: _ClassVar[CatanPhase]
    CATAN_ROBBER: _ClassVar[CatanPhase]
    CATAN_STEAL: _ClassVar[CatanPhase]
    CATAN_MAIN: _ClassVar[CatanPhase]
    CATAN_FREE_ROADS: _ClassVar[CatanPhase]
    CATAN_DRAW: _ClassVar[CatanPhase]
    CATAN_TRADE_ANSWER: _ClassVar[CatanPhase]
    CATAN_TRADE_CONFIRM: _ClassVar[CatanPhase]
    CATAN_OVER: _ClassVar[CatanPhase]
CATAN_RESOURCE_UNSPECIFIED: CatanResource
CATAN_BRICK: CatanResource
CATAN_LUMBER: CatanResource
CATAN_WOOL: CatanResource
CATAN_GRAIN: CatanResource
CATAN_ORE: CatanResource
CATAN_TERRAIN_UNSPECIFIED: CatanTerrain
CATAN_HILLS: CatanTerrain
CATAN_FOREST: CatanTerrain
CATAN_PASTURE: CatanTerrain
CATAN_FIELDS: CatanTerrain
CATAN_MOUNTAINS: CatanTerrain
CATAN_DESERT: CatanTerrain
CATAN_DEV_CARD_UNSPECIFIED: CatanDevCard
CATAN_KNIGHT: CatanDevCard
CATAN_ROAD_BUILDING: CatanDevCard
CATAN_YEAR_OF_PLENTY: CatanDevCard
CATAN_MONOPOLY: CatanDevCard
CATAN_VICTORY_POINT: CatanDevCard
CATAN_PHASE_UNSPECIFIED: CatanPhase
CATAN_SETUP_SETTLEMENT: CatanPhase
CATAN_SETUP_ROAD: CatanPhase
CATAN_PRE_ROLL: CatanPhase
CATAN_ROLL: CatanPhase
CATAN_DISCARD: CatanPhase
CATAN_ROBBER: CatanPhase
CATAN_STEAL: CatanPhase
CATAN_MAIN: CatanPhase
CATAN_FREE_ROADS: CatanPhase
CATAN_DRAW: CatanPhase
CATAN_TRADE_ANSWER: CatanPhase
CATAN_TRADE_CONFIRM: CatanPhase
CATAN_OVER: CatanPhase

class CatanResources(_message.Message):
    __slots__ = ("brick", "lumber", "wool", "grain", "ore")
    BRICK_FIELD_NUMBER: _ClassVar[int]
    LUMBER_FIELD_NUMBER: _ClassVar[int]
    WOOL_FIELD_NUMBER: _ClassVar[int]
    GRAIN_FIELD_NUMBER: _ClassVar[int]
    ORE_FIELD_NUMBER: _ClassVar[int]
    brick: int
    lumber: int
    wool: int
    grain: int
    ore: int
    def __init__(self, brick: _Optional[int] = ..., lumber: _Optional[int] = ..., wool: _Optional[int] = ..., grain: _Optional[int] = ..., ore: _Optional[int] = ...) -> None: ...

class CatanDevCards(_message.Message):
    __slots__ = ("knight", "road_building", "year_of_plenty", "monopoly", "victory_point")
    KNIGHT_FIELD_NUMBER: _ClassVar[int]
    ROAD_BUILDING_FIELD_NUMBER: _ClassVar[int]
    YEAR_OF_PLENTY_FIELD_NUMBER: _ClassVar[int]
    MONOPOLY_FIELD_NUMBER: _ClassVar[int]
    VICTORY_POINT_FIELD_NUMBER: _ClassVar[int]
    knight: int
    road_building: int
    year_of_plenty: int
    monopoly: int
    victory_point: int
    def __init__(self, knight: _Optional[int] = ..., road_building: _Optional[int] = ..., year_of_plenty: _Optional[int] = ..., monopoly: _Optional[int] = ..., victory_point: _Optional[int] = ...) -> None: ...

class CatanHex(_message.Message):
    __slots__ = ("id", "terrain", "number", "row", "col", "intersections", "paths")
    ID_FIELD_NUMBER: _ClassVar[int]
    TERRAIN_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    INTERSECTIONS_FIELD_NUMBER: _ClassVar[int]
    PATHS_FIELD_NUMBER: _ClassVar[int]
    id: int
    terrain: CatanTerrain
    number: int
    row: int
    col: int
    intersections: _containers.RepeatedScalarFieldContainer[int]
    paths: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, id: _Optional[int] = ..., terrain: _Optional[_Union[CatanTerrain, str]] = ..., number: _Optional[int] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., intersections: _Optional[_Iterable[int]] = ..., paths: _Optional[_Iterable[int]] = ...) -> None: ...

class CatanHarbor(_message.Message):
    __slots__ = ("id", "resource", "rate", "path", "intersections")
    ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    RATE_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    INTERSECTIONS_FIELD_NUMBER: _ClassVar[int]
    id: int
    resource: CatanResource
    rate: int
    path: int
    intersections: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, id: _Optional[int] = ..., resource: _Optional[_Union[CatanResource, str]] = ..., rate: _Optional[int] = ..., path: _Optional[int] = ..., intersections: _Optional[_Iterable[int]] = ...) -> None: ...

class CatanBuilding(_message.Message):
    __slots__ = ("intersection", "seat", "city")
    INTERSECTION_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CITY_FIELD_NUMBER: _ClassVar[int]
    intersection: int
    seat: int
    city: bool
    def __init__(self, intersection: _Optional[int] = ..., seat: _Optional[int] = ..., city: _Optional[bool] = ...) -> None: ...

class CatanRoad(_message.Message):
    __slots__ = ("path", "seat")
    PATH_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    path: int
    seat: int
    def __init__(self, path: _Optional[int] = ..., seat: _Optional[int] = ...) -> None: ...

class CatanPlayer(_message.Message):
    __slots__ = ("seat", "resource_count", "resources_known", "resources_unknown", "resources_visible", "resources", "dev_count", "dev_new_count", "dev_visible", "dev_cards", "dev_new", "knights_played", "public_victory_points", "victory_points", "road_length", "longest_road", "largest_army", "roads_left", "settlements_left", "cities_left", "trade_rates")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_COUNT_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_KNOWN_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_UNKNOWN_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    RESOURCES_FIELD_NUMBER: _ClassVar[int]
    DEV_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEV_NEW_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEV_VISIBLE_FIELD_NUMBER: _ClassVar[int]
    DEV_CARDS_FIELD_NUMBER: _ClassVar[int]
    DEV_NEW_FIELD_NUMBER: _ClassVar[int]
    KNIGHTS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    PUBLIC_VICTORY_POINTS_FIELD_NUMBER: _ClassVar[int]
    VICTORY_POINTS_FIELD_NUMBER: _ClassVar[int]
    ROAD_LENGTH_FIELD_NUMBER: _ClassVar[int]
    LONGEST_ROAD_FIELD_NUMBER: _ClassVar[int]
    LARGEST_ARMY_FIELD_NUMBER: _ClassVar[int]
    ROADS_LEFT_FIELD_NUMBER: _ClassVar[int]
    SETTLEMENTS_LEFT_FIELD_NUMBER: _ClassVar[int]
    CITIES_LEFT_FIELD_NUMBER: _ClassVar[int]
    TRADE_RATES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    resource_count: int
    resources_known: CatanResources
    resources_unknown: int
    resources_visible: bool
    resources: CatanResources
    dev_count: int
    dev_new_count: int
    dev_visible: bool
    dev_cards: CatanDevCards
    dev_new: CatanDevCards
    knights_played: int
    public_victory_points: int
    victory_points: int
    road_length: int
    longest_road: bool
    largest_army: bool
    roads_left: int
    settlements_left: int
    cities_left: int
    trade_rates: CatanResources
    def __init__(self, seat: _Optional[int] = ..., resource_count: _Optional[int] = ..., resources_known: _Optional[_Union[CatanResources, _Mapping]] = ..., resources_unknown: _Optional[int] = ..., resources_visible: _Optional[bool] = ..., resources: _Optional[_Union[CatanResources, _Mapping]] = ..., dev_count: _Optional[int] = ..., dev_new_count: _Optional[int] = ..., dev_visible: _Optional[bool] = ..., dev_cards: _Optional[_Union[CatanDevCards, _Mapping]] = ..., dev_new: _Optional[_Union[CatanDevCards, _Mapping]] = ..., knights_played: _Optional[int] = ..., public_victory_points: _Optional[int] = ..., victory_points: _Optional[int] = ..., road_length: _Optional[int] = ..., longest_road: _Optional[bool] = ..., largest_army: _Optional[bool] = ..., roads_left: _Optional[int] = ..., settlements_left: _Optional[int] = ..., cities_left: _Optional[int] = ..., trade_rates: _Optional[_Union[CatanResources, _Mapping]] = ...) -> None: ...

class CatanOffer(_message.Message):
    __slots__ = ("give", "get", "answers")
    GIVE_FIELD_NUMBER: _ClassVar[int]
    GET_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    give: CatanResources
    get: CatanResources
    answers: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, give: _Optional[_Union[CatanResources, _Mapping]] = ..., get: _Optional[_Union[CatanResources, _Mapping]] = ..., answers: _Optional[_Iterable[int]] = ...) -> None: ...

class CatanView(_message.Message):
    __slots__ = ("hexes", "harbors", "robber_hex", "buildings", "roads", "players", "bank", "dev_deck_count", "dev_played", "phase", "turn_seat", "acting_seat", "turn_number", "turn_limit", "dice", "rolled", "dev_card_played", "free_roads", "discard_queue", "discard_left", "steal_victim", "setup_step", "setup_intersection", "offers_made", "has_offer", "offer", "winners", "longest_road_seat", "largest_army_seat", "board", "tokens")
    HEXES_FIELD_NUMBER: _ClassVar[int]
    HARBORS_FIELD_NUMBER: _ClassVar[int]
    ROBBER_HEX_FIELD_NUMBER: _ClassVar[int]
    BUILDINGS_FIELD_NUMBER: _ClassVar[int]
    ROADS_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    BANK_FIELD_NUMBER: _ClassVar[int]
    DEV_DECK_COUNT_FIELD_NUMBER: _ClassVar[int]
    DEV_PLAYED_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TURN_SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTING_SEAT_FIELD_NUMBER: _ClassVar[int]
    TURN_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TURN_LIMIT_FIELD_NUMBER: _ClassVar[int]
    DICE_FIELD_NUMBER: _ClassVar[int]
    ROLLED_FIELD_NUMBER: _ClassVar[int]
    DEV_CARD_PLAYED_FIELD_NUMBER: _ClassVar[int]
    FREE_ROADS_FIELD_NUMBER: _ClassVar[int]
    DISCARD_QUEUE_FIELD_NUMBER: _ClassVar[int]
    DISCARD_LEFT_FIELD_NUMBER: _ClassVar[int]
    STEAL_VICTIM_FIELD_NUMBER: _ClassVar[int]
    SETUP_STEP_FIELD_NUMBER: _ClassVar[int]
    SETUP_INTERSECTION_FIELD_NUMBER: _ClassVar[int]
    OFFERS_MADE_FIELD_NUMBER: _ClassVar[int]
    HAS_OFFER_FIELD_NUMBER: _ClassVar[int]
    OFFER_FIELD_NUMBER: _ClassVar[int]
    WINNERS_FIELD_NUMBER: _ClassVar[int]
    LONGEST_ROAD_SEAT_FIELD_NUMBER: _ClassVar[int]
    LARGEST_ARMY_SEAT_FIELD_NUMBER: _ClassVar[int]
    BOARD_FIELD_NUMBER: _ClassVar[int]
    TOKENS_FIELD_NUMBER: _ClassVar[int]
    hexes: _containers.RepeatedCompositeFieldContainer[CatanHex]
    harbors: _containers.RepeatedCompositeFieldContainer[CatanHarbor]
    robber_hex: int
    buildings: _containers.RepeatedCompositeFieldContainer[CatanBuilding]
    roads: _containers.RepeatedCompositeFieldContainer[CatanRoad]
    players: _containers.RepeatedCompositeFieldContainer[CatanPlayer]
    bank: CatanResources
    dev_deck_count: int
    dev_played: CatanDevCards
    phase: CatanPhase
    turn_seat: int
    acting_seat: int
    turn_number: int
    turn_limit: int
    dice: int
    rolled: bool
    dev_card_played: bool
    free_roads: int
    discard_queue: _containers.RepeatedScalarFieldContainer[int]
    discard_left: int
    steal_victim: int
    setup_step: int
    setup_intersection: int
    offers_made: int
    has_offer: bool
    offer: CatanOffer
    winners: _containers.RepeatedScalarFieldContainer[int]
    longest_road_seat: int
    largest_army_seat: int
    board: str
    tokens: str
    def __init__(self, hexes: _Optional[_Iterable[_Union[CatanHex, _Mapping]]] = ..., harbors: _Optional[_Iterable[_Union[CatanHarbor, _Mapping]]] = ..., robber_hex: _Optional[int] = ..., buildings: _Optional[_Iterable[_Union[CatanBuilding, _Mapping]]] = ..., roads: _Optional[_Iterable[_Union[CatanRoad, _Mapping]]] = ..., players: _Optional[_Iterable[_Union[CatanPlayer, _Mapping]]] = ..., bank: _Optional[_Union[CatanResources, _Mapping]] = ..., dev_deck_count: _Optional[int] = ..., dev_played: _Optional[_Union[CatanDevCards, _Mapping]] = ..., phase: _Optional[_Union[CatanPhase, str]] = ..., turn_seat: _Optional[int] = ..., acting_seat: _Optional[int] = ..., turn_number: _Optional[int] = ..., turn_limit: _Optional[int] = ..., dice: _Optional[int] = ..., rolled: _Optional[bool] = ..., dev_card_played: _Optional[bool] = ..., free_roads: _Optional[int] = ..., discard_queue: _Optional[_Iterable[int]] = ..., discard_left: _Optional[int] = ..., steal_victim: _Optional[int] = ..., setup_step: _Optional[int] = ..., setup_intersection: _Optional[int] = ..., offers_made: _Optional[int] = ..., has_offer: _Optional[bool] = ..., offer: _Optional[_Union[CatanOffer, _Mapping]] = ..., winners: _Optional[_Iterable[int]] = ..., longest_road_seat: _Optional[int] = ..., largest_army_seat: _Optional[int] = ..., board: _Optional[str] = ..., tokens: _Optional[str] = ...) -> None: ...
