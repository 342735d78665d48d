// Package httpapi is payport's HTTP edge: the router, tolerant request
// decoding (JSON and form bodies, PHP-style bracketed keys), the response
// envelope, the one table that maps error kinds to HTTP statuses and
// envelope codes, authentication, request ids and request logs.
//
// Handlers are straight-line: decode, call the service, encode. No business
// rule lives here.
package httpapi
