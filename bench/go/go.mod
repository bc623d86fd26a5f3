module wsx/bench/go

go 1.19
