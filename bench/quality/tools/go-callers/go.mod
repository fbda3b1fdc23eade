module m1nd.local/gocallers

go 1.19
