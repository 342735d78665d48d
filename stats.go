package payport

// PoolStats describes one connection pool of a storage engine, for metrics.
type PoolStats struct {
	Pool  string // e.g. "writer", "reader", "pool"
	Max   int    // most connections it opens (0: no limit)
	Open  int    // connections open now
	InUse int    // of which busy
	Idle  int    // of which idle
}
