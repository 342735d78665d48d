package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/payport/payport"
)

// HTTP-only error kinds, beyond the domain's, for situations that arise
// before a handler runs.
const (
	kindTooLarge payport.ErrorKind = 100 + iota
	kindNoRoute
	kindMethod
)

// errorTable is the one place that decides the HTTP status and envelope
// code of a failure (decisions §1.3).
var errorTable = map[payport.ErrorKind]struct{ status, code int }{
	payport.KindInvalid:      {http.StatusBadRequest, -1},
	payport.KindUnauthorized: {http.StatusUnauthorized, -1},
	payport.KindNotFound:     {http.StatusNotFound, 1},
	payport.KindRefused:      {http.StatusOK, 1},
	payport.KindConflict:     {http.StatusOK, 1},
	payport.KindDeclined:     {http.StatusOK, -1},
	payport.KindInternal:     {http.StatusInternalServerError, -1},
	kindTooLarge:             {http.StatusRequestEntityTooLarge, -1},
	kindNoRoute:              {http.StatusNotFound, -1},
	kindMethod:               {http.StatusMethodNotAllowed, -1},
}

// signinErrorTable maps kinds to the sign-in API's status and error type
// (decisions §2.4), which has no envelope.
var signinErrorTable = map[payport.ErrorKind]struct {
	status int
	typ    string
}{
	payport.KindInvalid:      {http.StatusBadRequest, "INVALID_REQUEST"},
	payport.KindUnauthorized: {http.StatusUnauthorized, "UNAUTHORIZED"},
	kindTooLarge:             {http.StatusRequestEntityTooLarge, "INVALID_REQUEST"},
	payport.KindInternal:     {http.StatusInternalServerError, "INTERNAL_SERVER_ERROR"},
}

type envelope struct {
	Code     int     `json:"code"`
	Message  *string `json:"message"`
	Response any     `json:"response,omitempty"`
}

// writeOK writes a success envelope with payload as `response`.
func writeOK(w http.ResponseWriter, status int, payload any) {
	writeJSON(w, status, envelope{Code: 0, Response: payload})
}

// writeError writes the failure envelope for err. Internal errors are logged
// with their detail and answered with a generic message.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	kind, msg := classify(r, err)
	e := errorTable[kind]
	if e.status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	writeJSON(w, e.status, envelope{Code: e.code, Message: &msg})
}

// writeSigninError writes a sign-in API error, `{"type","message"}`.
func writeSigninError(w http.ResponseWriter, r *http.Request, err error) {
	kind, msg := classify(r, err)
	e, ok := signinErrorTable[kind]
	if !ok {
		e = signinErrorTable[payport.KindInternal]
	}
	writeJSON(w, e.status, map[string]string{"type": e.typ, "message": msg})
}

// classify returns err's kind and public message, logging internal errors.
func classify(r *http.Request, err error) (payport.ErrorKind, string) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return kindTooLarge, payport.MsgBodyTooLarge
	}
	kind := payport.KindOf(err)
	if _, known := errorTable[kind]; !known || kind == payport.KindInternal {
		slog.ErrorContext(r.Context(), "internal error", "request_id", requestID(r.Context()), "err", err)
		return payport.KindInternal, payport.MsgInternal
	}
	return kind, payport.MessageOf(err)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"code":-1,"message":"`+payport.MsgInternal+`"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
