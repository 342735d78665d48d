// Package rowmap is the row mapping that payport's two storage engines
// (sqlite and postgres) share: for each stored resource, the list of its
// table's columns in a fixed order and a function returning pointers to
// the fields of its struct in that same order, to Scan a row into or, for
// payments, to take the values of an INSERT or UPDATE from. It also folds
// an event's joined attempt rows into its History.
//
// It holds no SQL statements and no driver types. Each engine owns its
// statements, placeholders, table names, transactions, error mapping and
// the conversions its driver needs (database/sql versus pgx, NULL handling,
// RETURNING), and builds them around these lists, so a column added to a
// table is added here once, in both the list and its Fields function.
package rowmap
