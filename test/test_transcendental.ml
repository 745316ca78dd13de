let tests : Test_util.case list = []
