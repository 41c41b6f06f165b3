"""A tiny module with tests, for the go-client example."""


def mean(xs):
    if not xs:
        raise ValueError("mean of no numbers")
    return sum(xs) / len(xs)
