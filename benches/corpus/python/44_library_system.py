from datetime import date, timedelta


class LibraryError(Exception):
    pass


class Book:
    def __init__(self, isbn, title, author):
        self.isbn, self.title, self.author = isbn, title, author
        self.borrower = None
        self.due = None

    @property
    def available(self):
        return self.borrower is None

    def __str__(self):
        state = "in" if self.available else f"out to {self.borrower.name} until {self.due}"
        return f"{self.title} by {self.author} [{state}]"


class Member:
    MAX_LOANS = 2

    def __init__(self, name):
        self.name = name
        self.loans = []


class Library:
    LOAN_DAYS = 14
    FINE_PER_DAY = 0.25

    def __init__(self):
        self.books = {}

    def add(self, *books):
        for b in books:
            self.books[b.isbn] = b

    def checkout(self, isbn, member, today):
        book = self.books.get(isbn)
        if book is None:
            raise LibraryError(f"no such book {isbn}")
        if not book.available:
            raise LibraryError(f"'{book.title}' is already checked out")
        if len(member.loans) >= member.MAX_LOANS:
            raise LibraryError(f"{member.name} has reached the loan limit")
        book.borrower, book.due = member, today + timedelta(days=self.LOAN_DAYS)
        member.loans.append(book)

    def checkin(self, isbn, today):
        book = self.books[isbn]
        late = max((today - book.due).days, 0)
        book.borrower.loans.remove(book)
        book.borrower = book.due = None
        return late * self.FINE_PER_DAY


lib = Library()
lib.add(Book("111", "Dune", "Herbert"), Book("222", "Emma", "Austen"),
        Book("333", "Ulysses", "Joyce"), Book("444", "Beloved", "Morrison"))
ana, raj = Member("Ana"), Member("Raj")
d0 = date(2024, 4, 1)
actions = [("111", ana), ("222", ana), ("333", ana), ("111", raj), ("999", raj), ("444", raj)]
for isbn, who in actions:
    try:
        lib.checkout(isbn, who, d0)
        print(f"{who.name} borrowed {lib.books[isbn].title}")
    except LibraryError as e:
        print("refused:", e)
print(f"fine for Dune: ${lib.checkin('111', d0 + timedelta(days=20)):.2f}")
print(f"fine for Beloved: ${lib.checkin('444', d0 + timedelta(days=10)):.2f}")
for book in sorted(lib.books.values(), key=lambda b: b.title):
    print(" ", book)
print("available:", sum(b.available for b in lib.books.values()), "of", len(lib.books))
