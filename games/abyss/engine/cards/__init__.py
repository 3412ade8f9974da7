"""The card data: loaded, checked, and as the tables the engines read."""
