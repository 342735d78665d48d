package httpapi

import (
	"context"
	"net/http"

	"github.com/payport/payport/service"
)

func (h *handler) getToken(w http.ResponseWriter, r *http.Request) {
	p, err := decodeBody(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	key, secret := p.str("imp_key"), p.str("imp_secret")
	if p.err != nil {
		writeError(w, r, p.err)
		return
	}
	tok, err := h.svc.GetToken(r.Context(), key, secret)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeOK(w, http.StatusOK, tok)
}

func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	h.signinCall(w, r, "api_key", h.svc.SignIn)
}

func (h *handler) regenerate(w http.ResponseWriter, r *http.Request) {
	h.signinCall(w, r, "refresh_token", h.svc.Regenerate)
}

// signinCall runs a sign-in API operation that takes one string field and
// answers a token pair without the envelope.
func (h *handler) signinCall(w http.ResponseWriter, r *http.Request, field string, call func(context.Context, string) (service.TokenPair, error)) {
	p, err := decodeBody(r)
	if err != nil {
		writeSigninError(w, r, err)
		return
	}
	v := p.str(field)
	if p.err != nil {
		writeSigninError(w, r, p.err)
		return
	}
	pair, err := call(r.Context(), v)
	if err != nil {
		writeSigninError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, pair)
}
