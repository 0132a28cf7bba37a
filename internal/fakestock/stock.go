package fakestock

import (
	"encoding/json"
	"time"
)

// Flavour is one item of the stock, as the stock service sends it.
type Flavour struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Stock int    `json:"stock"`
}

// Flavours is Ice Cream Corp's stock, with the ids of the talk.
var Flavours = []Flavour{
	{ID: "cf93d53f-7f60-4c9d-a543-ef217a09269b", Name: "Cookies 'n' Cream", Stock: 8532},
	{ID: "41373bb6-e6fb-4606-8f01-1cd24e228939", Name: "Neopolitan", Stock: 0},
	{ID: "8e884a8d-ae04-4518-80b7-377ee5bcecc6", Name: "Pistachio", Stock: 6437},
}

// StockJSON is the real service's body after working for delay.
func StockJSON(delay time.Duration) string {
	b, _ := json.Marshal(struct { // cannot fail: the value is fixed
		Stock []Flavour `json:"stock"`
		Delay int64     `json:"delay"`
	}{Flavours, delay.Milliseconds()})
	return string(b)
}
