package bundle

import "reflect"

// The wire types of the two kinds, for the tests that walk the format's
// types: the germline container and the snapshot container.
var (
	DeathWireType    = deathWireType
	SnapshotWireType = snapshotWireType
	ListingWireType  = listingWireType
)

// ContainerTypes maps a kind to its wire type.
var ContainerTypes = map[string]reflect.Type{KindDeath: deathWireType, KindSnapshot: snapshotWireType, KindClade: deathWireType, KindListing: listingWireType}

// FieldLimits are the limits of the fields that have their own.
var FieldLimits = fieldLimits
