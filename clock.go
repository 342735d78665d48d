package payport

import "time"

// Clock tells the time. Rules never call time.Now; they ask a Clock, so that
// tests and each merchant's sandbox test clock can move time.
type Clock interface {
	Now() time.Time
}

// SystemClock is the host's clock, which the operator keeps synchronised with NTP.
type SystemClock struct{}

// Now returns the current time.
func (SystemClock) Now() time.Time { return time.Now() }

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }

// KST is Korea Standard Time (UTC+9, no daylight saving), in which calendar
// rules such as the mobile micro-payment refund month are judged.
var KST = time.FixedZone("KST", 9*60*60)
