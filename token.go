package payport

// TokenKind tells which API issued a token.
type TokenKind string

// Token kinds.
const (
	// TokenREST is the access token of POST /users/getToken: one current per key pair.
	TokenREST TokenKind = "rest"
	// TokenAccess is an access token of the sign-in API.
	TokenAccess TokenKind = "access"
	// TokenRefresh is a refresh token of the sign-in API; it is used up once.
	TokenRefresh TokenKind = "refresh"
)

// Token lifetimes and the getToken extension rule (spec §5, decisions §2.3).
const (
	TokenLifetime        = 1800  // seconds an access token lives
	TokenExtendWindow    = 60    // a getToken this close to expiry extends it
	TokenExtension       = 300   // by this many seconds
	RefreshTokenLifetime = 86400 // seconds a refresh token lives
)

// Token is an issued credential. The database keeps only Hash (SHA-256 of
// the token text) and, for REST tokens, the random ID from which the text is
// re-derived with the server key; the text itself is never stored.
type Token struct {
	Hash       []byte
	ID         string
	MerchantID int64
	Kind       TokenKind
	FamilyID   string // the sign-in a sign-in token descends from; "" for REST tokens
	IssuedAt   int64
	ExpiresAt  int64
	UsedAt     int64 // refresh tokens: when it was exchanged; 0 while unused
	RevokedAt  int64 // 0 while not revoked
}

// Valid reports whether t authenticates at merchant time now.
func (t Token) Valid(now int64) bool {
	return t.RevokedAt == 0 && now < t.ExpiresAt
}
