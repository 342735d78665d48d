package payport

// Customer is a stored billing key (spec 2.5). GatewayToken is the gateway's
// opaque token for the card; the full card number is never stored.
type Customer struct {
	MerchantID       int64
	CustomerUID      string
	PGProvider       string
	PGID             string
	CardName         string
	CardCode         string
	CardNumber       string // masked
	CardType         string
	GatewayToken     string
	CustomerName     string
	CustomerTel      string
	CustomerEmail    string
	CustomerAddr     string
	CustomerPostcode string
	Inserted         int64
	Updated          int64
}
