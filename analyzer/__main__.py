from analyzer.entry import main

main()
