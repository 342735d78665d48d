// Package payport is the domain of the payport service: the resources of the
// I'mport (PortOne) V1 REST API (payments, cancellations, merchants, tokens,
// billing keys, schedules, webhook events), their rules, exact money, the
// error type every layer speaks, and the interfaces that storage engines and
// the clock implement.
//
// It imports only the standard library. Adapters (httpapi, sqlite, the
// command) depend on it; it depends on none of them.
package payport
