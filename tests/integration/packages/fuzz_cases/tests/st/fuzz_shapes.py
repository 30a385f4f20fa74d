# Helper module of add_fuzz.py (imported from the script's directory).
def row_shape(rows):
    return [int(rows), 48]
