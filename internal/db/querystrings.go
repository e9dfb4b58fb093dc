package db

import "context"

// QueryStrings returns the first column of every row of a query, as
// strings.
func QueryStrings(ctx context.Context, c Conn, sql string, args ...any) ([]string, error) {
	rs, err := c.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out []string
	for rs.Next() {
		var s string
		if err := rs.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rs.Err()
}
