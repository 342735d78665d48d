// Package service implements payport's operations over the domain's Store:
// merchants and their credentials, access tokens (getToken and the sign-in
// API), payment lookups and the sandbox's recorded payments. It holds every
// business rule; the HTTP layer only decodes, calls and encodes.
//
// Time is read from the injected Clock, shifted by each merchant's sandbox
// test-clock offset, so tests never sleep and merchants never share a clock.
package service
