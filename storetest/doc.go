// Package storetest is the conformance suite of the storage contract
// (payport.Store). Every engine runs it unchanged from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) payport.Store { return openFreshStore(t) })
//	}
//
// Each case gets a fresh, migrated, empty store, so cases run in parallel
// and never see each other's rows. The suite checks what the service relies
// on: round trips of every resource, ErrNotFound and ErrConflict where the
// contract names them, the uniqueness rules as database constraints,
// rollback of a failed Update, and the compare-and-set operations under
// concurrency.
package storetest
