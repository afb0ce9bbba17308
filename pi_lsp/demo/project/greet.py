"""A tiny example program for the pi-lsp demo."""


def greet(name: str) -> str:
    return "Hello, " + name + "?"


if __name__ == "__main__":
    print(greet("world"))
