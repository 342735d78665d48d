package payport

import (
	"errors"
	"fmt"
)

// ErrorKind classifies a failure. The HTTP layer maps each kind to one HTTP
// status and envelope code in a single table; nothing else decides statuses.
type ErrorKind int

// The kinds of failure. See decisions §1.3 for their wire form.
const (
	// KindInternal is a bug or a storage failure: 500, details only in the log.
	KindInternal ErrorKind = iota
	// KindInvalid is malformed input: a missing field, a wrong type, a value out of range.
	KindInvalid
	// KindUnauthorized is a missing, unknown or expired credential.
	KindUnauthorized
	// KindNotFound is a lookup that found nothing.
	KindNotFound
	// KindRefused is a well-formed write that a business rule refuses.
	KindRefused
	// KindDeclined is a card or gateway failure of a write.
	KindDeclined
	// KindConflict is a uniqueness violation reported by storage; services
	// turn it into a refusal with the message the API promises.
	KindConflict
)

// Error is the one error type of the domain. Message is public: it is sent
// to the client as is, so it must never carry secrets or internal detail.
type Error struct {
	Kind    ErrorKind
	Message string
	Err     error // the cause, logged but never sent
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.Message, e.Err)
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind with a formatted public message.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a KindInvalid error whose message names the field and the rule,
// in the form "field: rule".
func Invalid(field, rule string) *Error {
	return &Error{Kind: KindInvalid, Message: field + ": " + rule}
}

// KindOf returns the kind of err: that of the first *Error in its chain, or
// KindInternal when there is none.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}

// MessageOf returns the public message of err, or "" when err carries none
// (an internal error, whose detail must not reach the client).
func MessageOf(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Kind != KindInternal {
		return e.Message
	}
	return ""
}

// IsNotFound reports whether err is a KindNotFound error.
func IsNotFound(err error) bool { return err != nil && KindOf(err) == KindNotFound }

// IsConflict reports whether err is a KindConflict error.
func IsConflict(err error) bool { return err != nil && KindOf(err) == KindConflict }

// ErrNotFound is what storage returns when a row does not exist.
var ErrNotFound = &Error{Kind: KindNotFound, Message: "not found"}

// ErrConflict is what storage returns when a uniqueness rule is violated.
var ErrConflict = &Error{Kind: KindConflict, Message: "conflict"}

// Public messages the API promises (decisions.md). Tests assert them verbatim.
const (
	MsgUnauthorized        = "Unauthorized"
	MsgTokenAuthFailed     = "imp_key, imp_secret 인증에 실패하였습니다."
	MsgTokenParamsMissing  = "imp_key, imp_secret 파라메터가 누락되었습니다."
	MsgPaymentNotFound     = "존재하지 않는 결제정보입니다."
	MsgInternal            = "일시적인 오류가 발생했습니다. 잠시 후 다시 시도해주세요."
	MsgMerchantUIDUsed     = "이미 사용된 merchant_uid입니다."
	MsgBodyTooLarge        = "request body: must be at most 1 MiB"
	MsgSigninUnauthorized  = "invalid credentials"
	MsgRefreshTokenReused  = "refresh token was already used; every token of this sign-in is revoked"
	MsgRefreshTokenInvalid = "refresh token is invalid or expired"
)
