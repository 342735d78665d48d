package sqlite

import (
	"context"

	"github.com/payport/payport"
	"github.com/payport/payport/internal/rowmap"
)

// CustomerByUID implements payport.Reader.
func (q queries) CustomerByUID(ctx context.Context, merchantID int64, customerUID string) (payport.Customer, error) {
	var c payport.Customer
	err := q.q.QueryRowContext(ctx, `SELECT `+rowmap.CustomerColumns+` FROM customers
		WHERE merchant_id = ? AND customer_uid = ?`, merchantID, customerUID).Scan(rowmap.CustomerFields(&c)...)
	if err != nil {
		return payport.Customer{}, mapErr("customer by uid", err)
	}
	return c, nil
}

// UpsertCustomer implements payport.Tx. A replaced key keeps its inserted
// time: the conflict update sets every column but the key and inserted.
func (t *tx) UpsertCustomer(ctx context.Context, c payport.Customer) error {
	_, err := t.q.ExecContext(ctx, `INSERT INTO customers (`+rowmap.CustomerColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (merchant_id, customer_uid) DO UPDATE SET
			pg_provider = excluded.pg_provider, pg_id = excluded.pg_id, card_name = excluded.card_name,
			card_code = excluded.card_code, card_number = excluded.card_number, card_type = excluded.card_type,
			gateway_token = excluded.gateway_token, customer_name = excluded.customer_name,
			customer_tel = excluded.customer_tel, customer_email = excluded.customer_email,
			customer_addr = excluded.customer_addr, customer_postcode = excluded.customer_postcode,
			updated = excluded.updated`,
		c.MerchantID, c.CustomerUID, c.PGProvider, c.PGID, c.CardName, c.CardCode, c.CardNumber, c.CardType,
		c.GatewayToken, c.CustomerName, c.CustomerTel, c.CustomerEmail, c.CustomerAddr, c.CustomerPostcode,
		c.Inserted, c.Updated)
	return mapErr("upsert customer", err)
}

// DeleteCustomer implements payport.Tx.
func (t *tx) DeleteCustomer(ctx context.Context, merchantID int64, customerUID string) error {
	res, err := t.q.ExecContext(ctx, `DELETE FROM customers WHERE merchant_id = ? AND customer_uid = ?`,
		merchantID, customerUID)
	return affected("delete customer", res, err)
}
