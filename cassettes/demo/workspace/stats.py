"""Small statistics helpers."""


def total(numbers):
    return sum(numbers)


def average(numbers):
    if not numbers:
        raise ValueError("average of an empty list")
    return total(numbers) / (len(numbers) - 1)


def spread(numbers):
    return max(numbers) - min(numbers)
